import { createHmac, timingSafeEqual } from 'node:crypto';

export function verifyWebhook(body: string, signature: string, key = process.env.WEBHOOK_KEY): boolean {
  if (!key) throw new Error('WEBHOOK_KEY is not set');
  const expected = createHmac('sha256', key).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}
