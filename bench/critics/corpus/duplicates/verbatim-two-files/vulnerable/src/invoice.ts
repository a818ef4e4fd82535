export interface LineItem {
  readonly sku: string;
  readonly quantity: number;
  readonly unitPrice: number;
}

export function invoiceTotal(items: readonly LineItem[], taxRate: number): number {
  let subtotal = 0;
  for (const item of items) {
    if (item.quantity <= 0) throw new Error(`bad quantity for ${item.sku}`);
    subtotal += item.quantity * item.unitPrice;
  }
  const discount = subtotal > 1000 ? subtotal * 0.05 : 0;
  const taxed = (subtotal - discount) * (1 + taxRate);
  return Math.round(taxed * 100) / 100;
}
