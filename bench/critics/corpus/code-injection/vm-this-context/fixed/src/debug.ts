import type { Request, Response } from 'express';

export function debugEval(req: Request, res: Response) {
  res.status(404).json({ error: 'debug evaluation is disabled', code: String(req.query.code).length });
}
