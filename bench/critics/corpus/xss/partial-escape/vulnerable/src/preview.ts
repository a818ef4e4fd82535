import type { Request, Response } from 'express';

export function preview(req: Request, res: Response) {
  const text = String(req.body.markdown);
  const html = text.split('\n').map((line) => `<p>${line}</p>`).join('');
  res.status(200).send(html); // VULN: xss
}
