import type { Finding, Letter, Severity } from '@rloop/contracts';
import { mdCode } from '@rloop/domain';
import { type FailOn, failsAt, lineSpan, plural, shortTitle } from '../format/report.js';
import { type GitHubClient } from './client.js';
import { escapeMarkdown } from './markdown.js';

/** Commentable lines of a pull request file: the new-side line ranges of its diff hunks. */
export type DiffHunks = ReadonlyMap<string, readonly (readonly [number, number])[]>;

/** A review comment as GitHub lists it (the fields we use). */
export interface ExistingComment {
  readonly id: number;
  readonly body: string;
  readonly path: string;
  readonly line: number | null;
}

export interface CommentPlan {
  readonly create: readonly {
    readonly key: string;
    readonly path: string;
    readonly line: number;
    readonly startLine: number | null;
    readonly body: string;
  }[];
  readonly update: readonly { readonly id: number; readonly body: string }[];
  readonly remove: readonly number[];
  /** Findings that are not on a line of the diff (shown in the summary only). */
  readonly outsideDiff: readonly Finding[];
}

const MARK = /<!-- rloop:finding ([0-9a-f]+)( resolved)? -->/;
export const SUMMARY_MARK = '<!-- rloop:summary -->';

/** Parses the hunks of a file's `patch` (as GitHub returns it) into new-side line ranges. */
export function hunksOfPatch(patch: string): [number, number][] {
  const ranges: [number, number][] = [];
  for (const match of patch.matchAll(/^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/gm)) {
    const start = Number(match[1]);
    const count = match[2] === undefined ? 1 : Number(match[2]);
    if (count > 0) ranges.push([start, start + count - 1]);
  }
  return ranges;
}

function keyOf(f: Finding): string {
  return f.location_hash ?? f.fingerprint;
}

function inDiff(hunks: DiffHunks, f: Finding): boolean {
  return (hunks.get(f.file) ?? []).some(([a, b]) => f.line_range.start >= a && f.line_range.end <= b);
}

const TIER_ICON: Readonly<Record<Severity, string>> = { critical: '🔴', medium: '🟠', low: '🔵' };

/** The body of a finding's review comment (the hidden marker lets a later run find and update it). */
export function findingCommentBody(f: Finding): string {
  const level = f.tool_severity === undefined ? f.severity : `${f.severity} (tool: ${escapeMarkdown(f.tool_severity)})`;
  return [
    `${TIER_ICON[f.severity]} **${level}** · ${mdCode(f.finding_type)} · rloop`,
    '',
    `**${escapeMarkdown(shortTitle(f))}**`,
    '',
    escapeMarkdown(f.current_behaviour),
    '',
    `**Expected:** ${escapeMarkdown(f.expected_behaviour)}`,
    '',
    `<sub>To accept this finding instead, write ${mdCode(`rloop-ignore ${f.finding_type} -- <reason>`)} on this line or the line before.</sub>`,
    `<!-- rloop:finding ${keyOf(f)} -->`,
  ].join('\n');
}

function resolvedBody(previous: string, key: string, sha: string): string {
  const title = /\n\*\*(.+)\*\*\n/.exec(previous)?.[1] ?? 'finding';
  return `✅ Resolved: ~~${title}~~ is no longer reported at ${sha.slice(0, 12)}.\n<!-- rloop:finding ${key} resolved -->`;
}

/**
 * What to do with the pull request's review comments (pure): a comment for each finding on a
 * line of the diff (at most `max`, most severe first), the earlier comment of the same finding
 * updated instead of a new one, and earlier comments whose finding is gone marked resolved.
 */
export function planComments(
  findings: readonly Finding[],
  hunks: DiffHunks,
  existing: readonly ExistingComment[],
  headSha: string,
  max: number,
): CommentPlan {
  const ours = new Map<string, ExistingComment>();
  for (const comment of existing) {
    const key = MARK.exec(comment.body)?.[1];
    if (key !== undefined && !ours.has(key)) ours.set(key, comment);
  }
  const commentable = findings.filter((f) => inDiff(hunks, f));
  const shown = commentable.slice(0, max);
  const create: { key: string; path: string; line: number; startLine: number | null; body: string }[] = [];
  const update: { id: number; body: string }[] = [];
  const remove: number[] = [];
  const wanted = new Set<string>();
  for (const f of shown) {
    const key = keyOf(f);
    if (wanted.has(key)) continue;
    wanted.add(key);
    const body = findingCommentBody(f);
    const earlier = ours.get(key);
    if (earlier !== undefined && earlier.path === f.file && earlier.line === f.line_range.end) {
      if (earlier.body !== body) update.push({ id: earlier.id, body });
      continue;
    }
    if (earlier !== undefined) remove.push(earlier.id);
    create.push({
      key,
      path: f.file,
      line: f.line_range.end,
      startLine: f.line_range.start === f.line_range.end ? null : f.line_range.start,
      body,
    });
  }
  for (const [key, comment] of ours) {
    if (wanted.has(key) || MARK.exec(comment.body)?.[2] !== undefined) continue;
    update.push({ id: comment.id, body: resolvedBody(comment.body, key, headSha) });
  }
  return {
    create,
    update,
    remove,
    outsideDiff: [...findings.filter((f) => !inDiff(hunks, f)), ...commentable.slice(max)],
  };
}

/** The one summary comment of the pull request. */
export function summaryBody(letter: Letter, outsideDiff: readonly Finding[], failOn: FailOn, version: string): string {
  const suppressed = letter.suppressed ?? [];
  const { critical, medium, low } = letter.counts;
  const total = critical + medium + low;
  const failing = letter.findings.filter((f) => failsAt(f, failOn)).length;
  const failed = letter.critics.filter((c) => c.outcome !== 'reported');
  const head =
    failed.length > 0
      ? '⚠️ Review incomplete'
      : failing > 0
        ? `❌ ${plural(failing, 'finding')} at ${failOn} or above`
        : total > 0
          ? '🟡 Findings below the failing tier'
          : '✅ No findings';
  const lines = [
    SUMMARY_MARK,
    `### rloop review — ${head}`,
    '',
    `${total === 0 ? 'No findings' : `${plural(total, 'finding')}: ${critical} critical, ${medium} medium, ${low} low`} on commit ${mdCode(letter.commit.slice(0, 12))}.` +
      (suppressed.length > 0 ? ` ${plural(suppressed.length, 'finding')} suppressed by the repository.` : ''),
  ];
  for (const c of failed)
    lines.push(
      '',
      `⚠️ ${mdCode(c.critic_id)} did not finish${c.message === undefined ? '' : `: ${escapeMarkdown(c.message)}`}`,
    );
  if (outsideDiff.length > 0) {
    lines.push('', `<details><summary>${plural(outsideDiff.length, 'finding')} not on a changed line</summary>`, '');
    for (const f of outsideDiff.slice(0, 30))
      lines.push(
        `- ${TIER_ICON[f.severity]} ${mdCode(`${f.file}:${lineSpan(f.line_range)}`)} ${escapeMarkdown(shortTitle(f))} (${mdCode(f.finding_type)})`,
      );
    if (outsideDiff.length > 30) lines.push(`- … and ${outsideDiff.length - 30} more`);
    lines.push('', '</details>');
  }
  if (suppressed.length > 0) {
    lines.push('', `<details><summary>${plural(suppressed.length, 'suppressed finding')}</summary>`, '');
    for (const s of suppressed.slice(0, 30))
      lines.push(
        `- ${mdCode(`${s.file}:${s.line}`)} ${mdCode(s.finding_type)} — ${s.kind}: ${escapeMarkdown(s.reason)}`,
      );
    lines.push('', '</details>');
  }
  lines.push(
    '',
    `<sub>rloop ${escapeMarkdown(version)} · tool warnings rank as critical: a review is clean only at zero warnings.</sub>`,
  );
  return lines.join('\n');
}

export interface PrTarget {
  readonly owner: string;
  readonly repo: string;
  readonly pull: number;
}

export interface PrReportResult {
  readonly created: number;
  readonly updated: number;
  readonly removed: number;
  readonly summary: 'created' | 'updated' | 'unchanged';
  readonly outsideDiff: number;
}

/**
 * Posts a letter on a pull request: review comments on the changed lines (created, updated or
 * marked resolved so a run replaces the previous one's comments instead of piling up) and one
 * summary comment, found again by its hidden marker and edited in place.
 */
export async function reportOnPullRequest(
  client: GitHubClient,
  target: PrTarget,
  letter: Letter,
  options: { readonly failOn: FailOn; readonly maxComments: number; readonly version: string },
): Promise<PrReportResult> {
  const base = `/repos/${encodeURIComponent(target.owner)}/${encodeURIComponent(target.repo)}`;
  const { data: pull } = await client.request<{ head: { sha: string } }>('GET', `${base}/pulls/${target.pull}`);
  const files = await client.paginate<{ filename: string; status: string; patch?: string }>(
    `${base}/pulls/${target.pull}/files`,
  );
  const hunks = new Map(
    files
      .filter((f) => f.status !== 'removed' && f.patch !== undefined)
      .map((f) => [f.filename, hunksOfPatch(f.patch ?? '')]),
  );
  const existing = await client.paginate<ExistingComment>(`${base}/pulls/${target.pull}/comments`);
  const plan = planComments(letter.findings, hunks, existing, pull.head.sha, options.maxComments);
  for (const id of plan.remove) await client.request('DELETE', `${base}/pulls/comments/${id}`);
  for (const u of plan.update) await client.request('PATCH', `${base}/pulls/comments/${u.id}`, { body: u.body });
  for (const c of plan.create) {
    await client.request('POST', `${base}/pulls/${target.pull}/comments`, {
      body: c.body,
      commit_id: pull.head.sha,
      path: c.path,
      line: c.line,
      side: 'RIGHT',
      ...(c.startLine === null ? {} : { start_line: c.startLine, start_side: 'RIGHT' }),
    });
  }
  const body = summaryBody(letter, plan.outsideDiff, options.failOn, options.version);
  const issueComments = await client.paginate<{ id: number; body: string }>(`${base}/issues/${target.pull}/comments`);
  const earlier = issueComments.find((c) => c.body.includes(SUMMARY_MARK));
  let summary: PrReportResult['summary'] = 'unchanged';
  if (earlier === undefined) {
    await client.request('POST', `${base}/issues/${target.pull}/comments`, { body });
    summary = 'created';
  } else if (earlier.body !== body) {
    await client.request('PATCH', `${base}/issues/comments/${earlier.id}`, { body });
    summary = 'updated';
  }
  return {
    created: plan.create.length,
    updated: plan.update.length,
    removed: plan.remove.length,
    summary,
    outsideDiff: plan.outsideDiff.length,
  };
}
