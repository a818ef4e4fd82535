import type { Request, Response } from 'express';

export function preview(req: Request, res: Response) {
  const text = String(req.body.markdown).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const html = text.split('\n').map((line) => `<p>${line}</p>`).join('');
  res.status(200).send(html);
}
