import type { Request, Response } from 'express';

export function whoAmI(req: Request, res: Response) {
  const { 'user-agent': agent } = req.headers;
  res.send('<p>Your browser: ' + agent + '</p>'); // VULN: xss
}
