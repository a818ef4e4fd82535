import type { DataOf, JournaledEvent, ScopeHolder } from '@rloop/contracts';
import { type DecisionMeta, decisionEvent, stampDecision } from '../loop/envelope.js';

/**
 * Scope locking: two plans on the same repository whose files overlap never run at once. The gate
 * owns the decision, at admission and again whenever a run that holds files ends; the lock itself
 * is the journal's committed state (the open runs and the scope each holds or waits for), never
 * the gate's memory, so it survives any restart.
 *
 * Deadlock-free by construction: a run only ever waits for runs admitted before it (the journal's
 * order of their PlanSubmitted), so the waits-for graph has no cycle — with A∩B, B∩C and C∩A, B
 * waits for A, C for A and B, and they run in that order.
 */

/** What the operator does with a plan whose files overlap an open run's (config/trust.yaml `scope_lock.on_overlap`). */
export const SCOPE_LOCK_MODES = ['queue', 'reject'] as const;
export type ScopeLockMode = (typeof SCOPE_LOCK_MODES)[number];

/** At most this many shared files are named per holder (the event and the message stay small). */
export const MAX_NAMED_OVERLAP = 20;

/** A run as the journal's `open_runs` query lists it (admission order). */
export interface OpenRun {
  readonly plan: string;
  readonly run_id: string;
  readonly status: string;
  /** The repository and files it holds or waits for; null before the gate decided it. */
  readonly scope: {
    readonly repo_path: string;
    readonly repo_url?: string | undefined;
    readonly files: readonly string[];
  } | null;
  /** Every run admitted before it is known (its PlanSubmitted is below the journal's read horizon). */
  readonly settled: boolean;
}

/** The run being decided: its scope as the gate resolved it at its ref. */
export interface ScopeCandidate {
  readonly run_id: string;
  readonly repo_path: string;
  /** The plan's repository URL, when it gave one: then the URL, not the gate's clone path, says which repository it is. */
  readonly repo_url?: string | undefined;
  readonly files: readonly string[];
  /** Already queued: it keeps its place whatever the mode says now (it is never rejected after it was told to wait). */
  readonly queued: boolean;
}

export type ScopeDecision =
  /** No earlier open run on the repository shares a file: it runs (LoopGated). */
  | { readonly kind: 'run' }
  /** It waits for these runs (LoopQueued naming them). */
  | { readonly kind: 'queue'; readonly waiting_for: readonly ScopeHolder[] }
  /** The operator rejects overlapping plans (PlanRejected naming the runs). */
  | { readonly kind: 'reject'; readonly conflicts: readonly ScopeHolder[] }
  /** Not decidable yet: a run admitted before it is not journaled or not gated yet; decide again shortly. */
  | { readonly kind: 'undecided'; readonly reason: string };

/**
 * Which repository a scope is on, comparable across runs: a URL without user info, its scheme and
 * host lower-cased, without a trailing slash or `.git` (`git@host:org/app.git` is
 * `ssh://host/org/app`); a local path as given (the gate resolved it). Two spellings of one URL
 * are one repository, whatever the clone they were read from.
 */
export function repositoryKey(scope: { readonly repo_path: string; readonly repo_url?: string | undefined }): string {
  const location = scope.repo_url;
  if (location === undefined) return scope.repo_path;
  const trim = (path: string): string => path.replace(/\/+$/, '').replace(/\.git$/, '');
  const url = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(?:[^/@]*@)?([^/]*)(.*)$/.exec(location);
  if (url !== null) {
    const scheme = (url[1] ?? '').toLowerCase();
    return scheme === 'file' ? trim(url[3] ?? '') : `${scheme}://${(url[2] ?? '').toLowerCase()}${trim(url[3] ?? '')}`;
  }
  const scp = /^(?:[^@/]+@)?(\[[^\]]+\]|[^:/]+):(?!\/\/)(.*)$/.exec(location);
  if (scp !== null && !location.startsWith('/'))
    return `ssh://${(scp[1] ?? '').toLowerCase()}/${trim((scp[2] ?? '').replace(/^\/+/, ''))}`;
  return trim(location);
}

function sharedFiles(a: readonly string[], b: readonly string[]): string[] {
  const other = new Set(b);
  return [...new Set(a.filter((file) => other.has(file)))].sort();
}

/**
 * Decides whether a run may start now (pure). `openRuns` is the journal's `open_runs` answer, in
 * admission order, and must contain the candidate; only the runs before it count.
 *
 * @example
 *   decideScopeLock({ run_id: 'b', repo_path: '/r', files: ['x.ts'], queued: false }, [runA_holding_x, runB], 'queue')
 *   // → { kind: 'queue', waiting_for: [{ plan: 'a', run_id: 'a', files: ['x.ts'] }] }
 */
export function decideScopeLock(
  candidate: ScopeCandidate,
  openRuns: readonly OpenRun[],
  mode: ScopeLockMode,
): ScopeDecision {
  const index = openRuns.findIndex((run) => run.run_id === candidate.run_id);
  if (index < 0)
    return { kind: 'undecided', reason: `run ${candidate.run_id} is not among the journal's open runs yet` };
  if (!openRuns[index]?.settled)
    return { kind: 'undecided', reason: `runs submitted just before ${candidate.run_id} may not be journaled yet` };
  const earlier = openRuns.slice(0, index);
  const unknown = earlier.filter((run) => run.scope === null);
  if (unknown.length > 0)
    return {
      kind: 'undecided',
      reason: `waiting for the gate to decide ${unknown.map((run) => run.plan).join(', ')}, admitted before it`,
    };
  const holders: ScopeHolder[] = [];
  for (const run of earlier) {
    if (run.scope === null || repositoryKey(run.scope) !== repositoryKey(candidate)) continue;
    const shared = sharedFiles(candidate.files, run.scope.files);
    if (shared.length > 0)
      holders.push({ plan: run.plan, run_id: run.run_id, files: shared.slice(0, MAX_NAMED_OVERLAP) });
  }
  if (holders.length === 0) return { kind: 'run' };
  if (mode === 'reject' && !candidate.queued) return { kind: 'reject', conflicts: holders };
  return { kind: 'queue', waiting_for: holders };
}

/** The rejection's message for an overlapping plan, naming each open run and what it shares. */
export function scopeConflictMessage(conflicts: readonly ScopeHolder[]): string {
  const named = conflicts.map((c) => `${c.plan} (${c.files.join(', ')})`).join('; ');
  return `the plan's files overlap loops still running on the same repository: ${named}; this fleet rejects overlapping plans (scope_lock.on_overlap: reject in config/trust.yaml) — submit it again when they end`;
}

/** Whether a queued run's holders are the ones it is already queued for (then nothing is published again). */
export function sameHolders(
  a: readonly Pick<ScopeHolder, 'run_id'>[],
  b: readonly Pick<ScopeHolder, 'run_id'>[],
): boolean {
  return a.length === b.length && a.every((holder, i) => holder.run_id === b[i]?.run_id);
}

/** What a run is gated with (LoopGated's data, carried by LoopQueued until it runs). */
export type Gating = Omit<DataOf<'LoopQueued'>, 'waiting_for'>;

/** The outcome of a scope decision for the gate: events to publish, or when to decide again. */
export type ScopeLockOutcome = { readonly publish: JournaledEvent[] } | { readonly retry: string };

/**
 * Turns a scope decision into the gate's events (pure): LoopGated (stamped with the run's version,
 * so the journal appends it only on the state it was decided on), LoopQueued naming the holders
 * (stamped too; nothing when the run is already queued for exactly those), or PlanRejected.
 */
export function scopeLockEvents(
  decision: ScopeDecision,
  run: {
    readonly meta: DecisionMeta;
    readonly version: number;
    readonly submission_id: string | null;
    readonly queued_for: readonly Pick<ScopeHolder, 'run_id'>[] | null;
  },
  gating: Gating,
): ScopeLockOutcome {
  switch (decision.kind) {
    case 'undecided':
      return { retry: decision.reason };
    case 'run':
      return { publish: stampDecision([decisionEvent('LoopGated', run.meta, ['gated'], gating)], run.version) };
    case 'queue':
      if (run.queued_for !== null && sameHolders(run.queued_for, decision.waiting_for)) return { publish: [] };
      return {
        publish: stampDecision(
          [
            decisionEvent('LoopQueued', run.meta, ['queued', ...decision.waiting_for.map((h) => h.run_id)], {
              ...gating,
              waiting_for: [...decision.waiting_for],
            }),
          ],
          run.version,
        ),
      };
    case 'reject':
      return {
        publish: [
          decisionEvent('PlanRejected', run.meta, ['rejected'], {
            ...(run.submission_id === null ? {} : { submission_id: run.submission_id }),
            errors: [{ path: 'files', message: scopeConflictMessage(decision.conflicts) }],
          }),
        ],
      };
  }
}
