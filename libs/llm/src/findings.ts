import { type Issue, Finding, SCORE_BANDS, toIssues } from '@rloop/contracts';
import type { FindingDraft } from '@rloop/critics';
import { transformJSONSchema } from '@anthropic-ai/sdk/lib/transform-json-schema';
import type { Tool } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';

const shape = Finding.shape;

/**
 * One finding as the model reports it: the FindingDraft fields of the contract (severity, score,
 * category, finding_type, file, line_range, title, behaviours, test conditions), without the
 * identity fields the runner adds and without `fixable` (an LLM never knows a machine fix).
 */
export const ReportedFinding = z
  .strictObject({
    severity: shape.severity,
    score: shape.score,
    category: shape.category,
    finding_type: shape.finding_type,
    file: shape.file,
    line_range: shape.line_range,
    title: shape.title,
    current_behaviour: shape.current_behaviour,
    expected_behaviour: shape.expected_behaviour,
    observable_test_conditions: shape.observable_test_conditions,
    forbidden_in_test: shape.forbidden_in_test,
    related_locations: z
      .array(z.strictObject({ file: shape.file, line_range: shape.line_range, note: z.string().max(500) }))
      .max(20)
      .optional(),
  })
  .superRefine((finding, ctx) => {
    // The contract's band rule, repeated here because the draft is a new object schema.
    const band = SCORE_BANDS[finding.severity];
    if (finding.score < band.min || finding.score > band.max) {
      ctx.addIssue({
        code: 'custom',
        path: ['score'],
        message: `score must lie in the band of its severity (${finding.severity}: ${band.min}-${band.max})`,
      });
    }
  });
export type ReportedFinding = z.infer<typeof ReportedFinding>;

/** The input of the report_findings tool. */
export const ReportFindingsInput = z.strictObject({ findings: z.array(ReportedFinding).max(50) });
export type ReportFindingsInput = z.infer<typeof ReportFindingsInput>;

export const REPORT_FINDINGS_TOOL = 'report_findings';

/**
 * The report_findings tool: its input_schema is generated from the zod draft (ids inlined, then
 * reduced to what strict tool use accepts; constraints it cannot express move into descriptions
 * and are still enforced by the zod parse).
 */
export function reportFindingsTool(): Tool {
  const generated = z.toJSONSchema(ReportFindingsInput, {
    target: 'draft-2020-12',
    io: 'input',
    metadata: z.registry(),
    unrepresentable: 'any',
  });
  const schema = transformJSONSchema(generated) as Tool.InputSchema;
  return {
    name: REPORT_FINDINGS_TOOL,
    description:
      'Report every finding of this review in one call. Each finding names a file shown in a <file_…> block and a line range that exists in it. Call with an empty list when there is nothing to report.',
    input_schema: schema,
    strict: true,
  };
}

export type ParseFindingsResult =
  | { readonly ok: true; readonly findings: readonly ReportedFinding[] }
  | { readonly ok: false; readonly issues: readonly Issue[] };

/** Validates one report_findings input. Pure. */
export function parseReportedFindings(input: unknown): ParseFindingsResult {
  const result = ReportFindingsInput.safeParse(input);
  return result.success ? { ok: true, findings: result.data.findings } : { ok: false, issues: toIssues(result.error) };
}

/** A finding that did not point at real lines of the files the critic was given. */
export interface DroppedFinding {
  readonly title: string;
  readonly file: string;
  readonly line_range: { readonly start: number; readonly end: number };
  readonly reason: string;
}

function normalisePath(path: string): string {
  return path.replace(/^(\.\/)+/, '');
}

/**
 * Keeps findings whose file (and every related location) is one of the files given and whose
 * lines exist in it; the others are dropped with a reason, never silently. Pure.
 */
export function checkFindingLocations(
  findings: readonly ReportedFinding[],
  lineCounts: ReadonlyMap<string, number>,
): { readonly kept: FindingDraft[]; readonly dropped: DroppedFinding[] } {
  const kept: FindingDraft[] = [];
  const dropped: DroppedFinding[] = [];
  const where = (file: string, range: { start: number; end: number }): string | null => {
    const lines = lineCounts.get(normalisePath(file));
    if (lines === undefined) return `file ${JSON.stringify(file)} was not among the files given`;
    if (range.end < range.start) return `line range ${range.start}-${range.end} is reversed`;
    if (range.start < 1 || range.end > lines)
      return `lines ${range.start}-${range.end} do not exist in ${file} (${lines} lines)`;
    return null;
  };
  for (const finding of findings) {
    const problem =
      where(finding.file, finding.line_range) ??
      (finding.related_locations ?? []).map((l) => where(l.file, l.line_range)).find((p) => p !== null) ??
      null;
    if (problem !== null) {
      dropped.push({ title: finding.title, file: finding.file, line_range: finding.line_range, reason: problem });
      continue;
    }
    kept.push({
      severity: finding.severity,
      score: finding.score,
      category: finding.category,
      finding_type: finding.finding_type,
      file: normalisePath(finding.file),
      line_range: finding.line_range,
      title: finding.title,
      current_behaviour: finding.current_behaviour,
      expected_behaviour: finding.expected_behaviour,
      observable_test_conditions: finding.observable_test_conditions,
      forbidden_in_test: finding.forbidden_in_test,
      related_findings: [],
      fixable: false,
      related_locations: (finding.related_locations ?? []).map((l) => ({
        file: normalisePath(l.file),
        line_range: l.line_range,
        note: l.note,
      })),
    });
  }
  return { kept, dropped };
}
