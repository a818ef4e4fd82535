import { Router } from 'express';
import knex from './knex';

export const items = Router();
const SORTABLE = new Set(['id', 'name', 'created_at']);

items.get('/items', async (req, res) => {
  const { sort = 'id', direction = 'asc' } = req.query as Record<string, string>;
  const column = SORTABLE.has(sort) ? sort : 'id';
  const order = direction === 'desc' ? 'desc' : 'asc';
  const rows = await knex.raw(`select * from items order by ${column} ${order}`);
  res.json(rows);
});
