import type { Request, Response } from 'express';

export function themeCss(req: Request, res: Response) {
  const color = String(req.query.color);
  res.send(`<style>body { background: ${color}; }</style>`); // VULN: xss
}
