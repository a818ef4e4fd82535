import type { Request, Response } from 'express';
import { db } from './db';

function findAccountByEmail(email: string) {
  return db.query('SELECT * FROM accounts WHERE email = $1 LIMIT 1', [email]);
}

export async function lookup(req: Request, res: Response) {
  const account = await findAccountByEmail(req.body.email);
  res.json(account.rows[0] ?? null);
}
