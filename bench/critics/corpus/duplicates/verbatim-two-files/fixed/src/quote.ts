import { invoiceTotal, type LineItem } from './invoice';

export function quoteTotal(items: readonly LineItem[], taxRate: number): number {
  return invoiceTotal(items, taxRate);
}
