import { type AutofixKind, CriticId, SCORE_BANDS, type Category, type Severity } from '@rloop/contracts';
import type { CriticDefinition, FindingDraft } from '../critic.js';

/**
 * Checks a critic definition once, where it is written (id format, a positive timeout), and
 * freezes it. Catches a malformed id at start-up instead of in the first letter.
 */
export function defineCritic<T extends CriticDefinition>(definition: T): T {
  const id = CriticId.safeParse(definition.id);
  if (!id.success)
    throw new TypeError(`critic id ${JSON.stringify(definition.id)} is not lowercase segments joined by slashes`);
  if (!Number.isInteger(definition.timeoutMs) || definition.timeoutMs <= 0) {
    throw new TypeError(`critic ${definition.id}: timeoutMs must be a positive integer, got ${definition.timeoutMs}`);
  }
  return Object.freeze(definition);
}

/** What every draft needs; the rest (related_findings, fixable, related_locations) has defaults. */
export interface DraftInput {
  readonly severity: Severity;
  /** Defaults to the middle of the severity's band. */
  readonly score?: number;
  readonly category: Category;
  readonly finding_type: string;
  readonly file: string;
  readonly line_range: { readonly start: number; readonly end: number };
  readonly title: string;
  readonly current_behaviour: string;
  readonly expected_behaviour: string;
  readonly observable_test_conditions: readonly string[];
  readonly forbidden_in_test: readonly string[];
  readonly fixable?: boolean;
  /** Which deterministic fix applies (ESLint's, a codemod), or `none`; absent when the critic cannot tell. */
  readonly autofix?: AutofixKind;
  /** The codemod that applies, or why no rewrite is safe. */
  readonly autofix_note?: string;
  readonly related_locations?: readonly {
    readonly file: string;
    readonly line_range: { readonly start: number; readonly end: number };
    readonly note: string;
  }[];
  readonly location_hash?: string;
  /** 1-based columns on the first and last flagged line, when the tool knows them (end is exclusive). */
  readonly column?: number;
  readonly end_column?: number;
  /** The tool's own level in its own words (ESLint `warning`, an advisory's `high`). */
  readonly tool_severity?: string;
}

const DEFAULT_SCORE: Readonly<Record<Severity, number>> = { critical: 8, medium: 5, low: 2 };

/** Builds a FindingDraft with the defaults filled in. Text fields are cut to the contract's limits. */
export function draftFinding(input: DraftInput): FindingDraft {
  const score = input.score ?? DEFAULT_SCORE[input.severity];
  const band = SCORE_BANDS[input.severity];
  return {
    severity: input.severity,
    score: Math.min(band.max, Math.max(band.min, score)),
    category: input.category,
    finding_type: input.finding_type,
    file: input.file,
    line_range: { start: input.line_range.start, end: Math.max(input.line_range.start, input.line_range.end) },
    title: clip(input.title, 300),
    current_behaviour: clip(input.current_behaviour, 4000),
    expected_behaviour: clip(input.expected_behaviour, 4000),
    observable_test_conditions: input.observable_test_conditions.slice(0, 20).map((t) => clip(t, 1000)),
    forbidden_in_test: input.forbidden_in_test.slice(0, 20).map((t) => clip(t, 1000)),
    related_findings: [],
    fixable: input.fixable ?? false,
    related_locations: (input.related_locations ?? []).slice(0, 20).map((l) => ({
      file: l.file,
      line_range: { start: l.line_range.start, end: Math.max(l.line_range.start, l.line_range.end) },
      note: clip(l.note, 500),
    })),
    ...(input.location_hash === undefined ? {} : { location_hash: input.location_hash }),
    ...columnsOf(input),
    ...(input.tool_severity === undefined || input.tool_severity === ''
      ? {}
      : { tool_severity: clip(input.tool_severity, 40) }),
    ...(input.autofix === undefined ? {} : { autofix: input.autofix }),
    ...(input.autofix_note === undefined ? {} : { autofix_note: clip(input.autofix_note, 500) }),
  };
}

/** Columns only when they make sense: positive, and an end after the start on a one-line finding. */
function columnsOf(input: DraftInput): { column?: number; end_column?: number } {
  const column =
    input.column !== undefined && Number.isInteger(input.column) && input.column >= 1 ? input.column : undefined;
  if (column === undefined) return {};
  const end = input.end_column;
  const singleLine = input.line_range.end <= input.line_range.start;
  const endOk = end !== undefined && Number.isInteger(end) && end >= 1 && (!singleLine || end > column);
  return endOk ? { column, end_column: end } : { column };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Converts a rule id into a FindingType-safe token (letters, digits, `@/._:+-`). */
export function findingTypeToken(raw: string): string {
  const cleaned = raw.replace(/[^A-Za-z0-9@/._:+-]+/g, '-').replace(/^[^A-Za-z0-9@]+/, '');
  return cleaned.length === 0 ? 'unknown' : cleaned.slice(0, 150);
}
