import type { Request, Response } from 'express';
import { Order } from './models/order';

const GROUPS = { customer: '$customer', region: '$region' } as const;

export async function revenueBy(req: Request, res: Response) {
  const field = req.query.field as string;
  if (!Object.hasOwn(GROUPS, field)) return res.status(400).end();
  const result = await Order.aggregate([{ $group: { _id: GROUPS[field as keyof typeof GROUPS], total: { $sum: '$total' } } }]);
  res.json(result);
}
