import { normaliseAddress } from '../legacy/address';

export function shippingAddress(form: { street: string; city: string; zip: string; country?: string }) {
  return normaliseAddress(form);
}
