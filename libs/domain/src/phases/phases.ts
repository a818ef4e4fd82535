import { PHASES, type Phase, type Severity } from '@rloop/contracts';

/** Top-K per critic for each phase (spec Decision 2); null is unlimited. */
export const DEFAULT_K: Readonly<Record<Phase, number | null>> = { critical: 3, medium: 5, low: 7, final_sweep: null };

/** The phase after this one, or null after the final sweep. */
export function nextPhase(phase: Phase): Phase | null {
  const index = PHASES.indexOf(phase);
  return PHASES[index + 1] ?? null;
}

/** Whether a finding of this severity belongs to the phase (the final sweep takes every severity). */
export function phaseIncludes(phase: Phase, severity: Severity): boolean {
  return phase === 'final_sweep' || phase === severity;
}
