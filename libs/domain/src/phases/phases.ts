import { PHASES, type Phase, type Severity } from '@rloop/contracts';

/** The phase after this one, or null after the final sweep. */
export function nextPhase(phase: Phase): Phase | null {
  const index = PHASES.indexOf(phase);
  return PHASES[index + 1] ?? null;
}

/** Whether a finding of this severity belongs to the phase (the final sweep takes every severity). */
export function phaseIncludes(phase: Phase, severity: Severity): boolean {
  return phase === 'final_sweep' || phase === severity;
}
