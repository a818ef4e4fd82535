import { QueryTypes } from 'sequelize';
import { sequelize } from './db';
import { app } from './app';

app.post('/auth', async ({ body: { username } }, res) => {
  const users = await sequelize.query(`SELECT * FROM users WHERE username = '${username}'`, { type: QueryTypes.SELECT }); // VULN: sql-injection
  res.json(users);
});
