export const MAPS_URL = 'https://maps.googleapis.com/maps/api/js?key=AIzaSyD4nq8Qw2EXh7Vt9PpLm3Kx6Rz1Yb5Fc0G'; // VULN: secret
