import type { Request, Response } from 'express';

export function boot(req: Request, res: Response) {
  res.send(`<script>window.__USER__ = ${JSON.stringify(req.query.user)};</script>`); // VULN: xss
}
