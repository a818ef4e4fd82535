import type { Request, Response } from 'express';
import { pool } from './pool';

const METRICS = ['visits', 'signups', 'revenue'];

function isKnownMetric(value: string): boolean {
  return METRICS.includes(value);
}

export async function stats(req: Request, res: Response) {
  const metric = String(req.query.metric);
  if (!isKnownMetric(metric)) return res.status(400).json({ error: 'unknown metric' });
  const { rows } = await pool.query(`SELECT date, ${metric} FROM daily_stats ORDER BY date`);
  res.json(rows);
}
