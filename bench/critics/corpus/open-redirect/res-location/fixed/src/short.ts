import type { Request, Response } from 'express';
import { links } from './links';

export function follow(req: Request, res: Response) {
  res.location(links.get(req.params.code) ?? '/').sendStatus(302);
}
