import type { Request, Response } from 'express';

export function whoAmI(req: Request, res: Response) {
  const { 'user-agent': agent } = req.headers;
  res.type('text/plain').send('Your browser: ' + agent);
}
