export class ReportBuilder {
  private readonly rows: string[][] = [];

  addSales(region: string, values: number[]): void {
    const cleaned = values.filter((v) => Number.isFinite(v) && v >= 0);
    const total = cleaned.reduce((sum, v) => sum + v, 0);
    const average = cleaned.length === 0 ? 0 : total / cleaned.length;
    const peak = cleaned.length === 0 ? 0 : Math.max(...cleaned);
    this.rows.push([region, total.toFixed(2), average.toFixed(2), peak.toFixed(2)]);
  }

  addReturns(region: string, amounts: number[]): void {
    const valid = amounts.filter((a) => Number.isFinite(a) && a >= 0); // VULN: duplicate
    const sum = valid.reduce((acc, a) => acc + a, 0);
    const mean = valid.length === 0 ? 0 : sum / valid.length;
    const max = valid.length === 0 ? 0 : Math.max(...valid);
    this.rows.push([region, sum.toFixed(2), mean.toFixed(2), max.toFixed(2)]);
  }
}
