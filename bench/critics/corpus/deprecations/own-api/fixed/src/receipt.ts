import { formatMoney } from './money';

export function receiptLine(label: string, cents: number): string {
  return `${label}: ${formatMoney(cents, 'EUR')}`;
}
