import type { EffortLevel, GateRuleHit, GateVerdict } from '@rloop/contracts';
import picomatch from 'picomatch';
import type { RefinementTriggers } from '../config/triggers.js';

export interface GateInput {
  readonly title: string;
  readonly description: string;
  readonly effort_level: EffortLevel;
  /** The plan's files resolved at its ref. */
  readonly files: readonly string[];
}

export interface GateDecision {
  readonly verdict: GateVerdict;
  /** Every rule that fired, including the ones an escape phrase overrode. */
  readonly rules: GateRuleHit[];
}

/** At most this many risk-surface hits are recorded; more add nothing a reader needs. */
const MAX_SURFACE_HITS = 25;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Finds escape phrases as whole words in any case ("Hotfix:" matches, "hotfixes" does not). */
function escapePhraseHits(triggers: RefinementTriggers, text: string): GateRuleHit[] {
  return triggers.escape_phrases
    .filter((phrase) =>
      new RegExp(`(^|[^a-z0-9])${escapeRegExp(phrase.toLowerCase()).replace(/\s+/g, '\\s+')}($|[^a-z0-9])`).test(
        text.toLowerCase(),
      ),
    )
    .map((phrase) => ({ rule: 'escape_phrase', detail: `"${phrase}" in the title or description bypasses the loop` }));
}

function riskSurfaceHits(triggers: RefinementTriggers, files: readonly string[]): GateRuleHit[] {
  const hits: GateRuleHit[] = [];
  for (const [category, globs] of Object.entries(triggers.risk_surfaces)) {
    const matchers = globs.map((glob) => ({ glob, match: picomatch(glob, { dot: true, nocase: true }) }));
    for (const file of files) {
      const matched = matchers.find((m) => m.match(file));
      if (matched === undefined) continue;
      hits.push({
        rule: 'risk_surface',
        detail: `${file} is on the ${category} risk surface`,
        file,
        glob: matched.glob,
        category,
      });
      if (hits.length >= MAX_SURFACE_HITS) return hits;
    }
  }
  return hits;
}

/**
 * Spec Decision 7: the loop runs when the effort level is high enough OR a file is on a risk
 * surface; an escape phrase bypasses it (one single-pass review); otherwise the plan gets a
 * single-pass review.
 */
export function decideGate(input: GateInput, triggers: RefinementTriggers): GateDecision {
  const escape = escapePhraseHits(triggers, `${input.title}\n${input.description}`);
  const effort: GateRuleHit[] = triggers.effort_levels.includes(input.effort_level)
    ? [{ rule: 'effort_level', detail: `effort level ${input.effort_level} runs the loop` }]
    : [];
  const surfaces = riskSurfaceHits(triggers, input.files);
  const rules = [...escape, ...effort, ...surfaces];
  if (escape.length > 0) return { verdict: 'bypass', rules };
  if (effort.length > 0 || surfaces.length > 0) return { verdict: 'run', rules };
  return { verdict: 'single_pass', rules };
}
