import { z } from 'zod';
import type { CriticContext, CriticDefinition, FindingDraft } from '../critic.js';
import { defineCritic, draftFinding } from '../plumbing/define.js';
import { type FunctionComplexity, measureFunctions } from './complexity-metrics.js';

/** Above `low` a function is reported as low, above `medium` as medium. */
export interface ComplexityBounds {
  readonly low: number;
  readonly medium: number;
}

export interface ComplexityThresholds {
  readonly cyclomatic: ComplexityBounds;
  readonly cognitive: ComplexityBounds;
}

/**
 * TODO(calibration): McCabe's 10 and SonarSource's 15 (cognitive) are the usual ceilings; the
 * loop's journal (which complexity findings were fixed, which were left) should settle them.
 */
export const DEFAULT_COMPLEXITY_THRESHOLDS: ComplexityThresholds = {
  cyclomatic: { low: 10, medium: 15 },
  cognitive: { low: 10, medium: 15 },
};

const Bounds = z
  .strictObject({ low: z.int().min(1), medium: z.int().min(1) })
  .refine((b) => b.medium >= b.low, { error: 'medium must be at least low' });

/** `settings` of quality/complexity in config/critics.yaml: `{ cyclomatic: { low, medium }, cognitive: { low, medium } }`, each optional. */
export const ComplexitySettings = z.strictObject({ cyclomatic: Bounds.optional(), cognitive: Bounds.optional() });

/** The thresholds from a catalogue entry's settings (the defaults for what it leaves out); a bad value throws with its path. */
export function complexityThresholds(settings: unknown): ComplexityThresholds {
  const result = ComplexitySettings.safeParse(settings ?? {});
  if (!result.success)
    throw new TypeError(`settings of quality/complexity (config/critics.yaml): ${z.prettifyError(result.error)}`);
  const parsed = result.data;
  return {
    cyclomatic: parsed.cyclomatic ?? DEFAULT_COMPLEXITY_THRESHOLDS.cyclomatic,
    cognitive: parsed.cognitive ?? DEFAULT_COMPLEXITY_THRESHOLDS.cognitive,
  };
}

/** Files whose functions are measured: TypeScript and JavaScript sources (not declaration files). */
export function isMeasurable(file: string): boolean {
  return /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/.test(file) && !/\.d\.[mc]?ts$/.test(file);
}

function level(value: number, bounds: ComplexityBounds): 0 | 1 | 2 {
  return value > bounds.medium ? 2 : value > bounds.low ? 1 : 0;
}

/** The finding for a function over a threshold, or null. Pure. */
export function complexityDraft(
  file: string,
  fn: FunctionComplexity,
  thresholds: ComplexityThresholds,
): FindingDraft | null {
  const worst = Math.max(level(fn.cyclomatic, thresholds.cyclomatic), level(fn.cognitive, thresholds.cognitive));
  if (worst === 0) return null;
  const over: string[] = [];
  if (fn.cyclomatic > thresholds.cyclomatic.low)
    over.push(
      `cyclomatic complexity ${fn.cyclomatic} (over ${fn.cyclomatic > thresholds.cyclomatic.medium ? thresholds.cyclomatic.medium : thresholds.cyclomatic.low})`,
    );
  if (fn.cognitive > thresholds.cognitive.low)
    over.push(
      `cognitive complexity ${fn.cognitive} (over ${fn.cognitive > thresholds.cognitive.medium ? thresholds.cognitive.medium : thresholds.cognitive.low})`,
    );
  const severity = worst === 2 ? 'medium' : 'low';
  // The score grows with how far over the line it is, inside the severity's band.
  const excess = Math.max(fn.cyclomatic - thresholds.cyclomatic.low, fn.cognitive - thresholds.cognitive.low);
  return draftFinding({
    severity,
    score: severity === 'medium' ? 4 + Math.min(2, Math.floor(excess / 10)) : 1 + Math.min(2, Math.floor(excess / 2)),
    category: 'maintainability',
    finding_type: 'complexity/function',
    file,
    line_range: { start: fn.startLine, end: fn.endLine },
    title: `${fn.name} is too complex: ${over.join(', ')}`,
    current_behaviour: `${fn.name} (${file}:${fn.startLine}-${fn.endLine}) has cyclomatic complexity ${fn.cyclomatic} and cognitive complexity ${fn.cognitive}: ${over.join(' and ')}. Each path is one more case to read, test and keep right.`,
    expected_behaviour: `${fn.name} is split into smaller functions (or its branches into a table) so that each stays at or under cyclomatic ${thresholds.cyclomatic.low} and cognitive ${thresholds.cognitive.low}, with the same observable behaviour.`,
    observable_test_conditions: [
      `every function extracted from ${fn.name} measures at or under the thresholds`,
      `the tests that cover ${fn.name} pass unchanged, and each extracted branch has a test of its own`,
    ],
    forbidden_in_test: [
      'moving the branches into a single helper with the same complexity',
      'changing behaviour to remove branches without a test that shows the old cases are handled',
    ],
  });
}

export interface ComplexityCriticOptions {
  readonly timeoutMs?: number;
  readonly thresholds?: ComplexityThresholds;
}

/**
 * `quality/complexity`: cyclomatic and cognitive complexity of the functions in the files under
 * review (the plan's change; `rloop review --base` keeps those on changed lines), medium above the
 * upper threshold, low above the lower one.
 */
export function complexityCritic(options: ComplexityCriticOptions = {}): CriticDefinition {
  const thresholds = options.thresholds ?? DEFAULT_COMPLEXITY_THRESHOLDS;
  return defineCritic({
    id: 'quality/complexity',
    evidence: 'ast',
    description: `Cyclomatic and cognitive complexity of the changed TypeScript/JavaScript functions: low over ${thresholds.cyclomatic.low}/${thresholds.cognitive.low}, medium over ${thresholds.cyclomatic.medium}/${thresholds.cognitive.medium}`,
    triggers: ['**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs}'],
    timeoutMs: options.timeoutMs ?? 60_000,
    covers: isMeasurable,
    run(context: CriticContext): Promise<readonly FindingDraft[]> {
      const drafts: FindingDraft[] = [];
      let measured = 0;
      for (const file of context.files) {
        context.signal.throwIfAborted();
        if (!isMeasurable(file)) continue;
        const text = context.reader.read(file);
        if (text === null) continue;
        const functions = measureFunctions(file, text);
        measured += functions.length;
        for (const fn of functions) {
          const draft = complexityDraft(file, fn, thresholds);
          if (draft !== null) drafts.push(draft);
        }
      }
      context.note?.(
        `${measured} function(s) measured; thresholds cyclomatic ${thresholds.cyclomatic.low}/${thresholds.cyclomatic.medium}, cognitive ${thresholds.cognitive.low}/${thresholds.cognitive.medium} (low/medium)`,
      );
      return Promise.resolve(drafts);
    },
  });
}
