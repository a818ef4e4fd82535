export const database = {
  host: 'db.internal',
  port: 5432,
  user: 'app',
  password: process.env.DB_PASSWORD,
  database: 'app',
  passwordMinLength: 12,
  passwordHint: 'set DB_PASSWORD',
};
