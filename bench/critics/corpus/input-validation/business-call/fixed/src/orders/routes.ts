import { Router } from 'express';
import { z } from 'zod';
import { OrderService } from './order-service';

const orders = new OrderService();
export const router = Router();
const Refund = z.object({ amount: z.number().positive().max(10_000) });
const OrderId = z.string().uuid();

router.post('/orders/:id/refund', async (req, res) => {
  const id = OrderId.parse(req.params.id);
  const { amount } = Refund.parse(req.body);
  const refund = await orders.refund(id, amount);
  res.json(refund);
});
