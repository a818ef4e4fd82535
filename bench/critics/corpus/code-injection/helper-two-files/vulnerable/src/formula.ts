export function evaluateFormula(formula: string): number {
  return eval(formula) as number; // VULN: code-injection
}
