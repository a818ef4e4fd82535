function summary(values: number[]): [string, string, string] {
  const cleaned = values.filter((v) => Number.isFinite(v) && v >= 0);
  const total = cleaned.reduce((sum, v) => sum + v, 0);
  const average = cleaned.length === 0 ? 0 : total / cleaned.length;
  const peak = cleaned.length === 0 ? 0 : Math.max(...cleaned);
  return [total.toFixed(2), average.toFixed(2), peak.toFixed(2)];
}

export class ReportBuilder {
  private readonly rows: string[][] = [];

  addSales(region: string, values: number[]): void {
    this.rows.push([region, ...summary(values)]);
  }

  addReturns(region: string, amounts: number[]): void {
    this.rows.push([region, ...summary(amounts)]);
  }
}
