import type { Request, Response } from 'express';

export function erasureDone(req: Request, res: Response) {
  res.render('erasure-result', { ...req.body, when: new Date() }); // VULN: path-traversal
}
