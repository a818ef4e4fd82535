import type { Request, Response } from 'express';

const PREDICATES: Record<string, (order: { total: number }) => boolean> = {
  large: (order) => order.total > 1000,
  small: (order) => order.total <= 1000,
};

export function evaluateRule(req: Request, res: Response) {
  const name = String(req.body.rule);
  if (!Object.hasOwn(PREDICATES, name)) return res.status(400).end();
  res.json({ matches: PREDICATES[name]?.(req.body.order) ?? false });
}
