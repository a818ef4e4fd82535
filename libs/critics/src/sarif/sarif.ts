import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { type Category, type Finding, type Letter, RloopError, SCORE_BANDS, type Severity } from '@rloop/contracts';
import type { CriticContext, CriticDefinition, FindingDraft } from '../critic.js';
import { CriticNotRunnableError } from '../errors.js';
import { defineCritic, draftFinding, findingTypeToken } from '../plumbing/define.js';
import { describeRule } from './rules.js';

// ───────────── SARIF 2.1.0 (the subset we read and write) ─────────────

const Region = z.looseObject({
  startLine: z.int().min(1).optional(),
  endLine: z.int().min(1).optional(),
  startColumn: z.int().min(1).optional(),
  endColumn: z.int().min(1).optional(),
});
const PhysicalLocation = z.looseObject({
  artifactLocation: z.looseObject({ uri: z.string().optional(), uriBaseId: z.string().optional() }).optional(),
  region: Region.optional(),
});
const Location = z.looseObject({
  physicalLocation: PhysicalLocation.optional(),
  message: z.looseObject({ text: z.string().optional() }).optional(),
});
const Message = z.looseObject({ text: z.string().optional(), markdown: z.string().optional() });
const ReportingDescriptor = z.looseObject({
  id: z.string(),
  shortDescription: Message.optional(),
  fullDescription: Message.optional(),
  help: Message.optional(),
  defaultConfiguration: z.looseObject({ level: z.enum(['none', 'note', 'warning', 'error']).optional() }).optional(),
  properties: z
    .looseObject({
      tags: z.array(z.string()).optional(),
      'security-severity': z.union([z.string(), z.number()]).optional(),
    })
    .optional(),
});
const Result = z.looseObject({
  ruleId: z.string().optional(),
  ruleIndex: z.int().optional(),
  level: z.enum(['none', 'note', 'warning', 'error']).optional(),
  message: Message,
  locations: z.array(Location).optional(),
  relatedLocations: z.array(Location).optional(),
  partialFingerprints: z.record(z.string(), z.string()).optional(),
  fixes: z.array(z.unknown()).optional(),
});
const Run = z.looseObject({
  tool: z.looseObject({ driver: z.looseObject({ name: z.string(), rules: z.array(ReportingDescriptor).optional() }) }),
  results: z.array(Result).optional(),
  originalUriBaseIds: z.record(z.string(), z.looseObject({ uri: z.string().optional() })).optional(),
});
/** A SARIF 2.1.0 log as far as the adapter needs it (everything else passes through). */
export const SarifLog = z.looseObject({ version: z.literal('2.1.0'), runs: z.array(Run) });
export type SarifLog = z.infer<typeof SarifLog>;

export type SarifLevel = 'none' | 'note' | 'warning' | 'error';

/**
 * SARIF level → our severity. Decision 8 makes every tool warning a defect, so `warning` is
 * critical like `error` (one point lower); `note` and `none` are informational and low.
 */
export const SARIF_LEVEL_SEVERITY: Readonly<Record<SarifLevel, { severity: Severity; score: number }>> = {
  error: { severity: 'critical', score: 8 },
  warning: { severity: 'critical', score: 7 },
  note: { severity: 'low', score: 2 },
  none: { severity: 'low', score: 1 },
};

function categoryFromTags(tags: readonly string[], severity: Severity): Category {
  const lower = tags.map((t) => t.toLowerCase());
  if (lower.some((t) => t === 'security' || t.startsWith('external/cwe'))) return 'security';
  if (lower.includes('performance')) return 'performance';
  if (lower.includes('maintainability')) return 'maintainability';
  if (lower.some((t) => t === 'readability' || t === 'style')) return 'readability';
  return severity === 'low' ? 'maintainability' : 'correctness';
}

function locationHash(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const hex = /^([0-9a-f]{16})(?::\d+)?$/.exec(value)?.[1];
  return hex ?? createHash('sha256').update(value).digest('hex').slice(0, 16);
}

function toRepoPath(
  uri: string | undefined,
  repoDir: string,
  bases: Record<string, string>,
  baseId: string | undefined,
): string | null {
  if (uri === undefined || uri === '') return null;
  let path: string;
  if (uri.startsWith('file:')) {
    path = fileURLToPath(uri);
  } else {
    const decoded = decodeURIComponent(uri);
    const base = baseId === undefined ? undefined : bases[baseId];
    path = isAbsolute(decoded)
      ? decoded
      : base !== undefined && base.startsWith('file:')
        ? join(fileURLToPath(base), decoded)
        : join(repoDir, decoded);
  }
  const rel = relative(repoDir, path).split(sep).join('/');
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? null : rel;
}

/** Maps a SARIF log's results to drafts (pure). Results without a location inside the repository are counted, not reported. */
export function sarifToDrafts(
  log: SarifLog,
  repoDir: string,
  options: { readonly prefix?: string; readonly command?: string } = {},
): { drafts: FindingDraft[]; unlocated: number } {
  const drafts: FindingDraft[] = [];
  let unlocated = 0;
  for (const run of log.runs) {
    const tool = run.tool.driver.name;
    const prefix = options.prefix ?? findingTypeToken(tool.toLowerCase());
    const rules = run.tool.driver.rules ?? [];
    const bases: Record<string, string> = {};
    for (const [id, base] of Object.entries(run.originalUriBaseIds ?? {}))
      if (base.uri !== undefined) bases[id] = base.uri;
    for (const result of run.results ?? []) {
      const rule =
        (result.ruleIndex !== undefined ? rules[result.ruleIndex] : undefined) ??
        rules.find((r) => r.id === result.ruleId);
      const ruleId = result.ruleId ?? rule?.id ?? 'unknown-rule';
      const physical = result.locations?.[0]?.physicalLocation;
      const file = toRepoPath(physical?.artifactLocation?.uri, repoDir, bases, physical?.artifactLocation?.uriBaseId);
      if (file === null) {
        unlocated += 1;
        continue;
      }
      const start = physical?.region?.startLine ?? 1;
      const end = Math.max(start, physical?.region?.endLine ?? start);
      const level = result.level ?? rule?.defaultConfiguration?.level ?? 'warning';
      const mapped = SARIF_LEVEL_SEVERITY[level];
      const securitySeverity = Number(rule?.properties?.['security-severity'] ?? NaN);
      const score =
        Number.isFinite(securitySeverity) && mapped.severity === 'critical'
          ? Math.min(SCORE_BANDS.critical.max, Math.max(mapped.score, Math.round(securitySeverity)))
          : mapped.score;
      const text = result.message.text ?? result.message.markdown ?? rule?.shortDescription?.text ?? ruleId;
      const related = (result.relatedLocations ?? [])
        .map((l) => {
          const relFile = toRepoPath(
            l.physicalLocation?.artifactLocation?.uri,
            repoDir,
            bases,
            l.physicalLocation?.artifactLocation?.uriBaseId,
          );
          const line = l.physicalLocation?.region?.startLine ?? 1;
          return relFile === null
            ? null
            : {
                file: relFile,
                line_range: { start: line, end: Math.max(line, l.physicalLocation?.region?.endLine ?? line) },
                note: l.message?.text ?? 'related location',
              };
        })
        .filter((l): l is NonNullable<typeof l> => l !== null);
      const hash = locationHash(result.partialFingerprints?.['primaryLocationLineHash']);
      drafts.push(
        draftFinding({
          severity: mapped.severity,
          score,
          category: categoryFromTags(rule?.properties?.tags ?? [], mapped.severity),
          finding_type: `${prefix}/${findingTypeToken(ruleId)}`,
          file,
          line_range: { start, end },
          ...(physical?.region?.startColumn === undefined ? {} : { column: physical.region.startColumn }),
          ...(physical?.region?.endColumn === undefined ? {} : { end_column: physical.region.endColumn }),
          tool_severity: level,
          title: `${ruleId}: ${text.split('\n')[0] ?? text}`,
          current_behaviour: `${tool} reports ${ruleId} (${level}) at ${file}:${start}: ${text}`,
          expected_behaviour:
            rule?.help?.text ??
            rule?.fullDescription?.text ??
            `${tool} no longer reports ${ruleId} here, because the code is fixed rather than the rule suppressed.`,
          observable_test_conditions: [
            `${options.command ?? tool} no longer reports ${ruleId} at ${file}:${start}`,
            'a test exercises the corrected behaviour',
          ],
          forbidden_in_test: ['suppressing the rule (inline comments, baselines, configuration changes)'],
          fixable: (result.fixes?.length ?? 0) > 0,
          related_locations: related,
          ...(hash === undefined ? {} : { location_hash: hash }),
        }),
      );
    }
  }
  return { drafts, unlocated };
}

export interface SarifCriticOptions {
  readonly id: string;
  /** The executable, e.g. `semgrep`. */
  readonly command: string;
  /** Arguments; `{repoDir}` and `{output}` (a temporary file the tool writes SARIF to) are substituted. */
  readonly args: readonly string[];
  readonly evidence?: string;
  readonly description?: string;
  readonly triggers?: readonly string[];
  readonly timeoutMs?: number;
  /** Prefix of finding types (default: the tool's driver name). */
  readonly findingTypePrefix?: string;
}

function execute(
  command: string,
  args: readonly string[],
  cwd: string,
  signal: AbortSignal,
): Promise<{ stdout: string; stderr: string; exitCode: number }> {
  return new Promise((resolve, reject) => {
    execFile(command, [...args], { cwd, signal, maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error !== null && (error.name === 'AbortError' || signal.aborted)) {
        reject(signal.reason instanceof Error ? signal.reason : error);
        return;
      }
      if (error !== null && typeof error.code === 'string') {
        reject(
          new CriticNotRunnableError(`${command} could not be started (${error.code}): is it installed and on PATH?`, {
            cause: error,
          }),
        );
        return;
      }
      resolve({ stdout, stderr, exitCode: error === null ? 0 : typeof error.code === 'number' ? error.code : 1 });
    });
  });
}

/**
 * A critic around any tool that writes SARIF 2.1.0 (Semgrep, CodeQL, ESLint's SARIF formatter…).
 * Tools usually exit non-zero when they find something, so the exit code is ignored when the
 * output is valid SARIF; invalid output is a crash of the critic, a missing tool is not runnable.
 */
export function createSarifCritic(options: SarifCriticOptions): CriticDefinition {
  return defineCritic({
    id: options.id,
    evidence: options.evidence ?? 'sarif',
    description: options.description ?? `Findings of \`${options.command}\` read from its SARIF 2.1.0 output.`,
    triggers: options.triggers ?? [],
    timeoutMs: options.timeoutMs ?? 600_000,
    async run(context: CriticContext): Promise<readonly FindingDraft[]> {
      const outDir = mkdtempSync(join(tmpdir(), 'rloop-sarif-'));
      const output = join(outDir, 'out.sarif');
      try {
        const args = options.args.map((arg) =>
          arg.replaceAll('{repoDir}', context.repoDir).replaceAll('{output}', output),
        );
        const { stdout, stderr, exitCode } = await execute(options.command, args, context.repoDir, context.signal);
        const raw = options.args.some((arg) => arg.includes('{output}')) ? readFileOrNull(output) : stdout;
        let body: unknown;
        try {
          body = JSON.parse(raw ?? '');
        } catch (error) {
          throw new RloopError(
            'CRITIC.SARIF_INVALID',
            `${options.command} exited ${exitCode} without SARIF output: ${stderr.trim().split('\n').slice(-3).join(' ')}`,
            { cause: error },
          );
        }
        const log = SarifLog.safeParse(body);
        if (!log.success)
          throw new RloopError(
            'CRITIC.SARIF_INVALID',
            `${options.command} wrote JSON that is not SARIF 2.1.0: ${log.error.issues[0]?.message ?? ''}`,
          );
        const { drafts, unlocated } = sarifToDrafts(log.data, context.repoDir, {
          command: `${options.command} ${options.args.join(' ')}`,
          ...(options.findingTypePrefix === undefined ? {} : { prefix: options.findingTypePrefix }),
        });
        if (unlocated > 0)
          context.note?.(`${unlocated} SARIF results had no location inside the repository and are not reported`);
        const review = new Set(context.files);
        return drafts.filter((d) => review.has(d.file));
      } finally {
        rmSync(outDir, { recursive: true, force: true });
      }
    },
  });
}

function readFileOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    // The tool did not write its output file; the caller reports "without SARIF output".
    return null;
  }
}

// ───────────── letter → SARIF ─────────────

const LEVEL: Readonly<Record<Severity, SarifLevel>> = { critical: 'error', medium: 'warning', low: 'note' };

/** Where our project lives, for SARIF `informationUri`. */
export const RLOOP_INFORMATION_URI = 'https://refinement-loop.dev';

export interface LetterToSarifOptions {
  /** The rloop version that wrote the log (driver.version and, when it is SemVer, driver.semanticVersion). */
  readonly toolVersion: string;
  readonly informationUri?: string;
  /**
   * A line of a reviewed file, for the end column of findings whose tool gave no columns (the
   * whole line is flagged). Without it, such regions end at the end of the line implicitly.
   */
  readonly readLine?: (file: string, line: number) => string | null;
}

function region(f: Finding, readLine: LetterToSarifOptions['readLine']): Record<string, number> {
  const start = f.column ?? 1;
  const explicitEnd = f.end_column;
  const lastLine = explicitEnd === undefined ? (readLine?.(f.file, f.line_range.end) ?? null) : null;
  const wholeLineEnd = lastLine === null ? undefined : lastLine.length + 1;
  // An empty flagged line has no character to end after: the region then runs to the end of the line implicitly.
  const end =
    explicitEnd ??
    (wholeLineEnd !== undefined && (f.line_range.end > f.line_range.start || wholeLineEnd > start)
      ? wholeLineEnd
      : undefined);
  return {
    startLine: f.line_range.start,
    startColumn: start,
    endLine: f.line_range.end,
    ...(end === undefined ? {} : { endColumn: end }),
  };
}

/**
 * A letter as a SARIF 2.1.0 log for GitHub code scanning: one run (tool `rloop`), one rule per
 * finding type with text that depends on the rule id alone (so rule metadata is the same on every
 * run), results with regions and columns where known, our fingerprint and line-shift-proof hash as
 * partial fingerprints under our own keys (primaryLocationLineHash is left to the upload action,
 * which computes it from the file), and critics that did not finish as tool execution
 * notifications: executionSuccessful is false exactly when a critic that ran failed.
 */
export function letterToSarif(letter: Letter, options: LetterToSarifOptions): Record<string, unknown> {
  const ruleIds = [...new Set(letter.findings.map((f) => f.finding_type))].sort();
  const rules = ruleIds.map((id) => {
    const rule = describeRule(id);
    return {
      id,
      name: rule.name,
      shortDescription: { text: rule.shortDescription },
      fullDescription: { text: rule.fullDescription },
      help: { text: rule.helpText, markdown: rule.helpMarkdown },
      ...(rule.helpUri === undefined ? {} : { helpUri: rule.helpUri }),
      defaultConfiguration: { level: rule.level },
      properties: {
        tags: [...rule.tags],
        precision: 'high',
        ...(rule.securitySeverity === undefined
          ? { 'problem.severity': rule.level === 'note' ? 'recommendation' : rule.level }
          : { 'security-severity': rule.securitySeverity }),
      },
    };
  });
  const results = letter.findings.map((f) => ({
    ruleId: f.finding_type,
    ruleIndex: ruleIds.indexOf(f.finding_type),
    level: LEVEL[f.severity],
    message: { text: `${f.title}\n\n${f.current_behaviour}\n\nExpected: ${f.expected_behaviour}` },
    locations: [
      { physicalLocation: { artifactLocation: { uri: encodeURI(f.file) }, region: region(f, options.readLine) } },
    ],
    partialFingerprints: {
      'rloopFingerprint/v1': f.fingerprint,
      ...(f.location_hash === undefined ? {} : { 'rloopLocationHash/v1': f.location_hash }),
    },
    ...(f.related_locations.length === 0
      ? {}
      : {
          relatedLocations: f.related_locations.map((l, index) => ({
            id: index + 1,
            physicalLocation: {
              artifactLocation: { uri: encodeURI(l.file) },
              region: { startLine: l.line_range.start, endLine: l.line_range.end },
            },
            message: { text: l.note === '' ? 'related location' : l.note },
          })),
        }),
    properties: {
      severity: f.severity,
      ...(f.tool_severity === undefined ? {} : { tool_severity: f.tool_severity }),
      score: f.score,
      category: f.category,
      raised_by: f.raised_by,
      fixable: f.fixable,
      ...(f.autofix === undefined ? {} : { autofix: f.autofix }),
      ...(f.autofix_note === undefined ? {} : { autofix_note: f.autofix_note }),
    },
  }));
  const failed = letter.critics.filter((c) => c.outcome !== 'reported');
  const notifications = failed.map((c) => ({
    level: 'error',
    message: {
      text: `${c.critic_id} ${c.outcome === 'timed_out' ? 'timed out' : 'did not finish'}${c.message === undefined ? '' : `: ${c.message}`}`,
    },
    descriptor: { id: c.critic_id },
  }));
  const semantic = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.test(options.toolVersion);
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'rloop',
            fullName: 'Refinement Loop review',
            version: options.toolVersion,
            ...(semantic ? { semanticVersion: options.toolVersion } : {}),
            informationUri: options.informationUri ?? RLOOP_INFORMATION_URI,
            rules,
          },
        },
        automationDetails: { id: `rloop/${letter.plan}/${letter.letter_id}` },
        invocations: [{ executionSuccessful: failed.length === 0, toolExecutionNotifications: notifications }],
        results,
        properties: {
          letter_id: letter.letter_id,
          commit: letter.commit,
          counts: letter.counts,
          complete: letter.complete,
          suppressed: letter.suppressed?.length ?? 0,
        },
      },
    ],
  };
}
