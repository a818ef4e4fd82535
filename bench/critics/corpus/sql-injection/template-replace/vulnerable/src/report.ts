import { Request, Response } from 'express';
import { pool } from './pool';

const REPORT_SQL = "SELECT * FROM sales WHERE region = '{region}'";

export async function salesReport(req: Request, res: Response) {
  const sql = REPORT_SQL.replace('{region}', req.query.region as string);
  const result = await pool.query(sql); // VULN: sql-injection
  res.json(result.rows);
}
