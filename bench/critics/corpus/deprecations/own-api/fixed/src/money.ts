/** @deprecated use formatMoney, which handles currencies */
export function formatEuros(cents: number): string {
  return `${(cents / 100).toFixed(2)} €`;
}

export function formatMoney(cents: number, currency: string): string {
  return new Intl.NumberFormat('de-DE', { style: 'currency', currency }).format(cents / 100);
}
