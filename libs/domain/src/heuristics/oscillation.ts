import type { LoopConfig } from './config.js';
import { isDisagreementCycle } from './critic-disagreement.js';
import { type Firing, trackerEvidence, where } from './firing.js';
import type { Tracker } from './memory.js';

// Oscillation: a fix did not hold — a finding came back `oscillation.reappearances` times after it
// had gone, or fixing one finding brought another back and vice versa (a cycle). Cycles between
// two critics on one region are a critic disagreement instead.

/** Of the findings that came back this round (present, or cut by top-K) after being gone, those back often enough. */
export function oscillations(cameBack: readonly Tracker[], config: LoopConfig): Tracker[] {
  return cameBack.filter((t) => t.reappearances >= config.oscillation.reappearances);
}

export interface OscillationInput {
  /** Trackers that came back this round. */
  readonly reappeared: readonly Tracker[];
  /** Cycles between findings this round. */
  readonly cycles: readonly (readonly [Tracker, Tracker])[];
  readonly round: number;
}

export function oscillation(input: OscillationInput, config: LoopConfig): Firing | null {
  const inDisagreement = new Set(
    input.cycles.filter((c) => isDisagreementCycle(c, config)).flatMap(([a, b]) => [a.key, b.key]),
  );
  const oscillating = oscillations(input.reappeared, config).filter((t) => !inDisagreement.has(t.key));
  const cycles = input.cycles.filter(([a, b]) => !inDisagreement.has(a.key) && !inDisagreement.has(b.key));
  if (oscillating.length === 0 && cycles.length === 0) return null;
  const parts = oscillating.map((t) => {
    const absent = [...t.segments].reverse().find((s) => s[2] === 'a');
    return `"${t.title}" (${where(t)}) was gone in round ${absent?.[0] ?? '?'} but came back in round ${input.round} — the fix did not hold`;
  });
  for (const [a, b] of cycles)
    parts.push(`fixing "${b.title}" brought back "${a.title}", and fixing "${a.title}" had brought back "${b.title}"`);
  return {
    heuristic: 'oscillation',
    trackers: [...new Map([...oscillating, ...cycles.flatMap(([a, b]) => [a, b])].map((t) => [t.key, t])).values()],
    message: parts.join('; '),
    evidence: {
      threshold: config.oscillation.reappearances,
      findings: oscillating.map((t) => ({ ...trackerEvidence(t), segments: t.segments.slice(-10) })),
      cycles: cycles.map(([a, b]) => [a.key.slice(0, 12), b.key.slice(0, 12)]),
    },
  };
}
