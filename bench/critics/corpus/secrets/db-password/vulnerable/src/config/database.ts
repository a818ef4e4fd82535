export const database = {
  host: 'db.internal',
  port: 5432,
  user: 'app',
  password: 'Qx7!vR2#mP9zL4wT', // VULN: secret
  database: 'app',
};
