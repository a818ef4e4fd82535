export class OrderService {
  async refund(orderId: string, amount: number) {
    return { orderId, amount, status: 'refunded' };
  }
}
