import { S3Client } from '@aws-sdk/client-s3';

export const s3 = new S3Client({
  region: 'eu-west-1',
  credentials: {
    accessKeyId: 'AKIAIDVWTFKTANGPVYQE', // VULN: secret
    secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? '',
  },
});
