import type { Request, Response } from 'express';
import { links } from './links';

export function follow(req: Request, res: Response) {
  const fallback = req.get('Referer');
  res.location(links.get(req.params.code) ?? fallback ?? '/').sendStatus(302); // VULN: open-redirect
}
