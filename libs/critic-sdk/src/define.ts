import { type Issue, PHASES, type Phase } from '@rloop/contracts';
import {
  type CriticContext,
  type CriticDefinition,
  type FindingDraft,
  defineCritic as checkCritic,
} from '@rloop/critics';
import { CriticDefinitionError } from './errors.js';

/** What a critic author writes: the same `run(context)` as a built-in critic, plus how it is announced. */
export interface CriticSpec {
  /** e.g. `team/no-console-log`: lowercase segments joined by slashes. */
  readonly id: string;
  /** The kind of evidence it brings: toolchain, ast, dataflow, pattern, llm, sarif, … */
  readonly evidence: string;
  /**
   * File globs that put the critic on a panel when the catalogue does not name it; empty asks to be
   * dispatched for every plan (core status is only ever given by the catalogue).
   */
  readonly triggers: readonly string[];
  readonly description?: string;
  /** Phases whose severities it reports (default: all). Informational: critics report every severity. */
  readonly phases?: readonly Phase[];
  /** Default 120 000 ms; the panel's catalogue timeout wins for a critic it names. */
  readonly timeoutMs?: number;
  /** Why it cannot run here (a missing tool, a missing key), or null. */
  readonly notConfiguredReason?: () => string | null;
  /**
   * The files it reviews (its languages and kinds). With it, every answer says what the critic
   * covered — read the files through `context.reader` (or tell `context.coverage` what a tool of
   * yours analysed) — and a core critic that analysed none of the files it supports fails with
   * `no_files_analysed`. Without it, answers carry no coverage.
   */
  readonly covers?: (file: string) => boolean;
  readonly run: (context: CriticContext) => Promise<readonly FindingDraft[]>;
}

/** A checked critic: interchangeable with a built-in one (it is a CriticDefinition) and announceable. */
export interface ServiceCritic extends CriticDefinition {
  readonly phases: readonly Phase[];
}

export const DEFAULT_CRITIC_TIMEOUT_MS = 120_000;

/**
 * Checks a critic once, where it is written, and fills in the defaults.
 *
 * @example
 *   const critic = defineCritic({ id: 'team/no-todo', evidence: 'pattern', triggers: ['src/**'], run: async (ctx) => [] });
 */
export function defineCritic(spec: CriticSpec): ServiceCritic {
  const issues: Issue[] = [];
  if (typeof spec.evidence !== 'string' || spec.evidence.length < 1 || spec.evidence.length > 64)
    issues.push({ path: 'evidence', message: 'must be 1-64 characters' });
  if (!Array.isArray(spec.triggers))
    issues.push({ path: 'triggers', message: 'must be an array of globs (empty: every plan)' });
  else
    spec.triggers.forEach((glob, i) => {
      if (typeof glob !== 'string' || glob.length < 1 || glob.length > 500)
        issues.push({ path: `triggers[${i}]`, message: 'must be a glob of 1-500 characters' });
    });
  const phases = spec.phases ?? PHASES;
  if (phases.length === 0) issues.push({ path: 'phases', message: 'must name at least one phase' });
  phases.forEach((phase, i) => {
    if (!(PHASES as readonly string[]).includes(phase))
      issues.push({ path: `phases[${i}]`, message: `must be one of ${PHASES.join(', ')}` });
  });
  if ((spec.description ?? '').length > 2000) issues.push({ path: 'description', message: 'at most 2000 characters' });
  if (typeof spec.run !== 'function') issues.push({ path: 'run', message: 'must be a function' });
  if (spec.covers !== undefined && typeof spec.covers !== 'function')
    issues.push({ path: 'covers', message: 'must be a function of a file path' });
  if (issues.length > 0)
    throw new CriticDefinitionError(
      `critic ${String(spec.id)}: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
      issues,
    );
  const critic: ServiceCritic = {
    id: spec.id,
    evidence: spec.evidence,
    description: spec.description ?? '',
    triggers: Object.freeze([...spec.triggers]),
    phases: Object.freeze([...phases]),
    timeoutMs: spec.timeoutMs ?? DEFAULT_CRITIC_TIMEOUT_MS,
    run: spec.run,
    ...(spec.notConfiguredReason === undefined ? {} : { notConfiguredReason: spec.notConfiguredReason }),
    ...(spec.covers === undefined ? {} : { covers: spec.covers }),
  };
  try {
    // The critics library checks the id format and the timeout the same way for built-in critics.
    return checkCritic(critic);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new CriticDefinitionError(message, [{ path: message.includes('timeoutMs') ? 'timeoutMs' : 'id', message }]);
  }
}
