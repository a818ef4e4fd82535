import { Router } from 'express';
import { OrderService } from './order-service';

const orders = new OrderService();
export const router = Router();

router.post('/orders/:id/refund', async (req, res) => {
  const refund = await orders.refund(req.params.id, req.body.amount); // VULN: unvalidated-input
  res.json(refund);
});
