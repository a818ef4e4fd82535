import { createHmac, timingSafeEqual } from 'node:crypto';

const WEBHOOK_KEY = 'whsec_7f2c9a1e';

export function verifyWebhook(body: string, signature: string): boolean {
  const expected = createHmac('sha256', WEBHOOK_KEY).update(body).digest(); // VULN: secret/hardcoded-key
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}
