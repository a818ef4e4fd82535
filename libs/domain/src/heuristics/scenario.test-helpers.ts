// Synthetic rounds for the heuristics specs: each round is spelled as the findings the critics
// report, which of them the letter keeps, and what the fix touched; the helper turns that into
// the journal's events and folds them through evolveMemory.
import type { Finding, JournaledEvent, LineRange } from '@rloop/contracts';
import { SHA_A, event, finding, gated, letterFor, submitted } from '../testing/builders.test-helpers.js';
import { findDisagreements } from '../synthesis/disagreements.js';
import { DEFAULT_LOOP_CONFIG, LoopConfig, type LoopConfigInput } from './config.js';
import {
  type LoopDetection,
  type LoopMemory,
  type MemoryStep,
  type RoundHistoryRow,
  evolveMemory,
  initialLoopMemory,
} from './memory.js';

export const LINTER = 'toolchain/compiler-linter';
export const SAST = 'security/sast-scanner';

export interface RoundSpec {
  /** What the critics reported (grouped into one FindingsReported per critic). */
  readonly findings: readonly Finding[];
  /** Fingerprints the letter keeps (default: all reported findings of the phase). */
  readonly letter?: readonly string[];
  /** Critics that failed this round (CriticFailed with this reason). */
  readonly failed?: Readonly<Record<string, 'crashed' | 'timed_out' | 'rate_limited'>>;
  readonly phase?: Finding['severity'] | 'final_sweep';
  readonly fix?: FixSpec;
  readonly retained_best?: { readonly best_round: number };
}

export interface FixSpec {
  /** Findings the fix touched, with the lines it changed in their file. */
  readonly touched?: readonly { readonly finding: Finding; readonly hunks: readonly LineRange[] }[];
  /** Other files it changed. */
  readonly other?: readonly { readonly file: string; readonly hunks: readonly LineRange[] }[];
  readonly outcome?: 'committed' | 'no_change' | 'reverted' | 'failed';
  readonly reason?: string;
}

export interface RoundResult {
  readonly detections: readonly LoopDetection[];
  readonly history: RoundHistoryRow | null;
}

/** A loop in the making: call round() per round and read what the heuristics said. */
export class Scenario {
  memory: LoopMemory = initialLoopMemory('add-billing');
  readonly config: LoopConfig;
  private position = 0;
  private round_ = 0;
  readonly steps: MemoryStep[] = [];
  readonly events: JournaledEvent[] = [];

  constructor(config: LoopConfigInput = {}) {
    this.config = LoopConfig.parse({ ...config });
    this.fold(submitted({ description: '', files: ['src/**'] }));
    this.fold(gated());
  }

  fold(e: JournaledEvent): MemoryStep {
    this.position += 1;
    this.events.push(e);
    const step = evolveMemory(this.memory, e, this.position, this.config);
    this.memory = step.memory;
    this.steps.push(step);
    return step;
  }

  round(spec: RoundSpec): RoundResult {
    this.round_ += 1;
    const round = this.round_;
    const phase = spec.phase ?? 'critical';
    const critics = [
      ...new Set([LINTER, SAST, ...spec.findings.map((f) => f.raised_by), ...Object.keys(spec.failed ?? {})]),
    ];
    const detections: LoopDetection[] = [];
    const collect = (step: MemoryStep): void => void detections.push(...step.detections);
    const commit = round.toString(16).padStart(40, '0');
    collect(
      this.fold(
        event('RoundStarted', {
          round,
          phase,
          phase_round: round,
          k: 3,
          mode: 'loop',
          commit,
          base_commit: SHA_A,
          repo_path: '/repo',
          files: ['src/index.ts'],
          critics: critics.map((id) => ({
            critic_id: id,
            evidence: 'toolchain',
            core: true,
            reason: 'core',
            timeout_ms: 60_000,
          })),
          not_configured: [],
          deadline_at: '2026-11-30T12:00:00.000Z',
          ...(spec.retained_best === undefined
            ? {}
            : {
                retained_best: {
                  best_round: spec.retained_best.best_round,
                  best_commit: SHA_A,
                  worse_round: round - 1,
                  worse_commit: SHA_A,
                  detail: 'worse',
                },
              }),
        }),
      ),
    );
    for (const critic of critics) {
      const failed = spec.failed?.[critic];
      if (failed !== undefined) {
        collect(
          this.fold(event('CriticFailed', { round, critic_id: critic, core: true, reason: failed, message: 'boom' })),
        );
      } else {
        collect(
          this.fold(
            event('FindingsReported', {
              round,
              critic_id: critic,
              commit,
              findings: spec.findings.filter((f) => f.raised_by === critic),
              truncated: false,
              duration_ms: 5,
            }),
          ),
        );
      }
    }
    const kept = spec.findings.filter(
      (f) =>
        (spec.letter === undefined
          ? phase === 'final_sweep' || f.severity === phase
          : spec.letter.includes(f.fingerprint)) && spec.failed?.[f.raised_by] === undefined,
    );
    // As the synthesizer writes it: the disagreements of the kept findings under the configured table.
    const letter = {
      ...letterFor(round, phase, kept, { complete: spec.failed === undefined }),
      commit,
      disagreements: findDisagreements(kept, this.config.critic_disagreement.known_conflicts),
    };
    collect(this.fold(event('LetterWritten', { letter })));
    if (spec.fix !== undefined) collect(this.fold(this.fixEvent(round, spec.fix)));
    return { detections, history: this.memory.history };
  }

  private fixEvent(round: number, fix: FixSpec): JournaledEvent {
    const byFile = new Map<string, { fixed: string[]; hunks: LineRange[] }>();
    for (const t of fix.touched ?? []) {
      const entry = byFile.get(t.finding.file) ?? { fixed: [], hunks: [] };
      entry.fixed.push(t.finding.id);
      entry.hunks.push(...t.hunks);
      byFile.set(t.finding.file, entry);
    }
    for (const o of fix.other ?? []) {
      const entry = byFile.get(o.file) ?? { fixed: [], hunks: [] };
      entry.hunks.push(...o.hunks);
      byFile.set(o.file, entry);
    }
    const outcome = fix.outcome ?? (byFile.size === 0 ? 'no_change' : 'committed');
    const changed = outcome === 'committed' || outcome === 'reverted';
    const fixes = changed
      ? [...byFile].map(([file, e]) => ({
          file,
          fixed_findings: e.fixed,
          lines_changed: e.hunks.length * 2,
          hunks: e.hunks,
        }))
      : [];
    return event('FixApplied', {
      round,
      letter_id: `d_letter${String(round).padStart(8, '0')}`,
      strategy: 'command',
      outcome,
      ...(fix.reason === undefined ? {} : { reason: fix.reason }),
      fixes_applied: fixes,
      tests_added: [],
      tests_result: { added: 0, passed: 1, failed: 0, total: 1, regressions: 0, warnings: 0 },
      base_commit: SHA_A,
      commit: outcome === 'committed' ? (round + 100).toString(16).padStart(40, '0') : null,
      diff_stats: { files_changed: fixes.length, insertions: 1, deletions: 1 },
      duration_ms: 10,
    });
  }
}

/** A finding with an id derived from its place, so the same issue keeps its id across rounds. */
export function issue(overrides: Partial<Finding> & { readonly line?: number } = {}): Finding {
  const { line, ...rest } = overrides;
  const range = line === undefined ? (rest.line_range ?? { start: 3, end: 3 }) : { start: line, end: line };
  const f = finding({ ...rest, line_range: range });
  return { ...f, id: rest.id ?? `${f.raised_by}:${f.finding_type}:${f.file}:${range.start}` };
}

export function heuristicsOf(result: RoundResult): string[] {
  return result.detections.map((d) => d.heuristic);
}

export { DEFAULT_LOOP_CONFIG };
