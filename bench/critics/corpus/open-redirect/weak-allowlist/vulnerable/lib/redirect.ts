import type { Request, Response } from 'express';

const allowedTargets = ['https://github.com/acme', 'https://blog.acme.dev'];

export function isRedirectAllowed(url: string): boolean {
  let allowed = false;
  for (const target of allowedTargets) {
    allowed = allowed || url.includes(target);
  }
  return allowed;
}

export function performRedirect(req: Request, res: Response) {
  const to = String(req.query.to);
  if (!isRedirectAllowed(to)) return res.status(406).send('unrecognized target');
  res.redirect(to); // VULN: open-redirect
}
