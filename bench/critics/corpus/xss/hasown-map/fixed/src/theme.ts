import type { Request, Response } from 'express';

const COLORS = { light: '#fff', dark: '#111', sepia: '#f4ecd8' };

export function themeCss(req: Request, res: Response) {
  const color = String(req.query.color);
  if (!Object.hasOwn(COLORS, color)) return res.status(400).end();
  res.send(`<style>body { background: ${color}; }</style>`);
}
