import type { Request, Response } from 'express';
import { pool } from './pool';

export async function stats(req: Request, res: Response) {
  const metric = String(req.query.metric);
  const { rows } = await pool.query(`SELECT date, ${metric} FROM daily_stats ORDER BY date`); // VULN: sql-injection
  res.json(rows);
}
