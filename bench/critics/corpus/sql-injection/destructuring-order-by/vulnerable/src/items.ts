import { Router } from 'express';
import knex from './knex';

export const items = Router();

items.get('/items', async (req, res) => {
  const { sort = 'id', direction = 'asc' } = req.query as Record<string, string>;
  const rows = await knex.raw(`select * from items order by ${sort} ${direction}`); // VULN: sql-injection
  res.json(rows);
});
