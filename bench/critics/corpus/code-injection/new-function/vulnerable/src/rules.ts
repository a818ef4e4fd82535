import type { Request, Response } from 'express';

export function evaluateRule(req: Request, res: Response) {
  const predicate = new Function('order', `return ${req.body.condition};`); // VULN: code-injection
  res.json({ matches: predicate(req.body.order) });
}
