import { runInThisContext } from 'node:vm';
import type { Request, Response } from 'express';

export function debugEval(req: Request, res: Response) {
  res.json({ result: runInThisContext(String(req.query.code)) }); // VULN: code-injection
}
