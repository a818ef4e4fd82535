export function evaluateFormula(formula: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*\*\s*(\d+(?:\.\d+)?)$/.exec(formula);
  if (match === null) throw new Error('unsupported formula');
  return Number(match[1]) * Number(match[2]);
}
