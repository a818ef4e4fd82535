import type { Request, Response } from 'express';

export function erasureDone(req: Request, res: Response) {
  res.render('erasure-result', { email: String(req.body.email), when: new Date() });
}
