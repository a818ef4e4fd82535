// The CVSS v3.x base score from a vector string, as FIRST's specification (v3.1, section 7) defines
// it. OSV records carry vectors, not scores; GitHub's records also name a label, which wins.

const WEIGHTS = {
  AV: { N: 0.85, A: 0.62, L: 0.55, P: 0.2 },
  AC: { L: 0.77, H: 0.44 },
  UI: { N: 0.85, R: 0.62 },
  CIA: { H: 0.56, L: 0.22, N: 0 },
} as const;

/** CVSS 3.1's Roundup: the smallest number with one decimal at or above the input, free of float noise. */
function roundUp(value: number): number {
  const scaled = Math.round(value * 100_000);
  return scaled % 10_000 === 0 ? scaled / 100_000 : (Math.floor(scaled / 10_000) + 1) / 10;
}

function pick<T extends Record<string, number>>(table: T, key: string | undefined): number | null {
  return key !== undefined && Object.hasOwn(table, key) ? (table[key] ?? null) : null;
}

/** The base score (0–10) of a `CVSS:3.0/…` or `CVSS:3.1/…` vector, or null when it is not one. */
export function cvssV3BaseScore(vector: string): number | null {
  const parts = vector.trim().split('/');
  if (!/^CVSS:3\.[01]$/.test(parts[0] ?? '')) return null;
  const metrics = new Map(parts.slice(1).map((part) => part.split(':') as [string, string]));
  const scope = metrics.get('S');
  if (scope !== 'U' && scope !== 'C') return null;
  const changed = scope === 'C';
  const pr = metrics.get('PR');
  const privileges =
    pr === 'N' ? 0.85 : pr === 'L' ? (changed ? 0.68 : 0.62) : pr === 'H' ? (changed ? 0.5 : 0.27) : null;
  const av = pick(WEIGHTS.AV, metrics.get('AV'));
  const ac = pick(WEIGHTS.AC, metrics.get('AC'));
  const ui = pick(WEIGHTS.UI, metrics.get('UI'));
  const c = pick(WEIGHTS.CIA, metrics.get('C'));
  const i = pick(WEIGHTS.CIA, metrics.get('I'));
  const a = pick(WEIGHTS.CIA, metrics.get('A'));
  if (privileges === null || av === null || ac === null || ui === null || c === null || i === null || a === null)
    return null;
  const iss = 1 - (1 - c) * (1 - i) * (1 - a);
  const impact = changed ? 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15 : 6.42 * iss;
  if (impact <= 0) return 0;
  const exploitability = 8.22 * av * ac * privileges * ui;
  return roundUp(Math.min(changed ? 1.08 * (impact + exploitability) : impact + exploitability, 10));
}
