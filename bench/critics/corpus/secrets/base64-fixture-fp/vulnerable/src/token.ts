export const serviceToken = 'Bearer 7hQk2ZpX9mRv4TcL8wNy3BfJ6sDg1AeK'; // VULN: secret
