import type { Request, Response } from 'express';
import { db } from './db';

function findAccountByEmail(email: string) {
  const statement = `SELECT * FROM accounts WHERE email = '${email}' LIMIT 1`;
  return db.query(statement); // VULN: sql-injection
}

export async function lookup(req: Request, res: Response) {
  const account = await findAccountByEmail(req.body.email);
  res.json(account.rows[0] ?? null);
}
