import type { Request, Response } from 'express';
import { Order } from './models/order';

export async function revenueBy(req: Request, res: Response) {
  const field = req.query.field as string;
  const result = await Order.collection.mapReduce(`function () { emit(this.${field}, this.total); }`, 'function (key, values) { return Array.sum(values); }', { out: { inline: 1 } }); // VULN: code-injection
  res.json(result);
}
