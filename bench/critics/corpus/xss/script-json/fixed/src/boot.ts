import type { Request, Response } from 'express';

export function boot(req: Request, res: Response) {
  res.render('boot', { user: req.query.user });
}
