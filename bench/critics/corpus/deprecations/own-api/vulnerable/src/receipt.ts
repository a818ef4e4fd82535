import { formatEuros } from './money';

export function receiptLine(label: string, cents: number): string {
  return `${label}: ${formatEuros(cents)}`; // VULN: deprecation
}
