import type { Request, Response } from 'express';

const allowedTargets = ['https://github.com/acme', 'https://blog.acme.dev'];

export function isRedirectAllowed(url: string): boolean {
  return allowedTargets.includes(url);
}

export function performRedirect(req: Request, res: Response) {
  const to = String(req.query.to);
  if (!isRedirectAllowed(to)) return res.status(406).send('unrecognized target');
  res.redirect(to);
}
