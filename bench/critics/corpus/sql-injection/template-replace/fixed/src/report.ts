import { Request, Response } from 'express';
import { pool } from './pool';

const REPORT_SQL = 'SELECT * FROM sales WHERE region = $1';

export async function salesReport(req: Request, res: Response) {
  const result = await pool.query(REPORT_SQL, [req.query.region]);
  res.json(result.rows);
}
