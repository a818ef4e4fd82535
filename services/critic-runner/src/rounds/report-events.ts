import type { DataOf, Finding } from '@rloop/contracts';
import { compareFindings } from '@rloop/domain';

/** The most findings one report carries (the contract's cap); the rest are counted as truncated. */
export const MAX_REPORTED_FINDINGS = 500;

/** A critic's findings for the FindingsReported event: the most important first, capped. */
export function reportData(round: number, criticId: string, commit: string, findings: readonly Finding[], durationMs: number): DataOf<'FindingsReported'> {
  const ranked = [...findings].sort(compareFindings);
  return {
    round,
    critic_id: criticId,
    commit,
    findings: ranked.slice(0, MAX_REPORTED_FINDINGS),
    truncated: ranked.length > MAX_REPORTED_FINDINGS,
    duration_ms: Math.round(durationMs),
  };
}
