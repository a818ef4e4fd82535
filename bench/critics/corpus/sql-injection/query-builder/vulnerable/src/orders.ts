import type { Request, Response } from 'express';
import { AppDataSource } from './data-source';
import { Order } from './order.entity';

export async function listOrders(request: Request, response: Response) {
  const status = request.query.status as string;
  const orders = await AppDataSource.getRepository(Order)
    .createQueryBuilder('o')
    .where(`o.status = '${status}'`) // VULN: sql-injection
    .getMany();
  response.json(orders);
}
