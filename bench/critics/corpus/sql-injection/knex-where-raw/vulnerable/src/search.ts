import type { Request, Response } from 'express';
import { knex } from './knex';

export const search = async (req: Request, res: Response) => {
  const name = req.query.name;
  const rows = await knex.select('*').from('users').whereRaw('name = ' + name); // VULN: sql-injection
  res.json(rows);
};
