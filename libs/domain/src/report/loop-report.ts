import type { JournaledEvent, Letter, Phase, SeverityCounts } from '@rloop/contracts';

/** How a run stands in its final report: ended (four ways), waiting for people, or still going. */
export type ReportOutcome = 'converged' | 'bypassed' | 'stopped' | 'rejected' | 'escalated' | 'running';

export interface ReportCritic {
  readonly critic_id: string;
  /** `reported`, or the CriticFailed reason. */
  readonly outcome: string;
  readonly duration_ms: number | null;
  readonly findings: number;
}

export interface ReportFix {
  readonly outcome: string;
  readonly strategy: string;
  readonly commit: string | null;
  readonly reason: string | null;
  readonly lines_changed: number;
  readonly tests_added: readonly string[];
  readonly duration_ms: number;
  /** The attempt's diff as the implementer recorded it (bounded), committed or reverted. */
  readonly patch: string | null;
}

export interface ReportRound {
  readonly round: number;
  readonly phase: Phase;
  readonly commit: string;
  readonly started_at: string;
  /** Until the next round started, or the run ended; null while it runs. */
  readonly duration_ms: number | null;
  readonly letter_id: string | null;
  readonly counts: SeverityCounts | null;
  readonly findings: number | null;
  readonly complete: boolean | null;
  readonly critics: readonly ReportCritic[];
  readonly fix: ReportFix | null;
  readonly cost_usd: number;
}

export interface KeyMoment {
  readonly round: number;
  readonly at: string;
  readonly kind: 'drop' | 'phase' | 'revert' | 'escalation' | 'resume' | 'outcome';
  readonly text: string;
}

export interface FixedFinding {
  readonly fingerprint: string;
  readonly title: string;
  readonly severity: string;
  readonly file: string;
  readonly raised_by: string;
  /** The round whose letter last had it. */
  readonly round: number;
  /** The commit of that round's fix (null: it went away without a commit of ours, e.g. a critic stopped reporting it). */
  readonly commit: string | null;
}

export interface OpenFinding {
  readonly fingerprint: string;
  readonly title: string;
  readonly severity: string;
  readonly file: string;
  readonly line: number;
  readonly raised_by: string;
}

/** A pattern seen in earlier loops for one of this run's finding types (the journal's learnings). */
export interface ReportLearning {
  readonly critic_id: string;
  readonly finding_type: string;
  readonly loops: number;
  readonly fixed: number;
  readonly stuck: number;
  readonly example_title: string;
}

/** Everything a person needs to know about one run once it has ended (`rloop report`). */
export interface LoopReport {
  readonly plan: string;
  readonly run_id: string;
  readonly title: string;
  readonly outcome: ReportOutcome;
  /** Why it ended (or stands) where it does, in a sentence. */
  readonly why: string;
  readonly branch: string | null;
  readonly started_at: string;
  readonly ended_at: string | null;
  readonly duration_ms: number | null;
  readonly rounds: readonly ReportRound[];
  /** Open findings per round, by severity (letters only). */
  readonly trend: {
    readonly rounds: readonly number[];
    readonly critical: readonly number[];
    readonly medium: readonly number[];
    readonly low: readonly number[];
  };
  readonly key_moments: readonly KeyMoment[];
  readonly fixed: readonly FixedFinding[];
  readonly open: readonly OpenFinding[];
  readonly learnings: readonly ReportLearning[];
  readonly tests_added: readonly { readonly round: number; readonly test: string }[];
  readonly commits: readonly string[];
  readonly cost_usd: number;
  readonly escalation: {
    readonly reason: string;
    readonly detail: string;
    readonly recommended_action: string;
    readonly markdown: string;
  } | null;
  /** Where the implementer left the branch after the escalation or stop (BranchHandedOff): which round, and why. */
  readonly handoff: ReportHandoff | null;
}

export interface ReportHandoff {
  readonly round: number | null;
  readonly commit: string;
  readonly last_commit: string;
  readonly last_ref: string;
  readonly moved: boolean;
  readonly reason: string;
  /** The whole sentence people read (report, console). */
  readonly summary: string;
}

/** "rloop/x is left at round 2 (abc123456789): …; its last commit def… is kept at refs/rloop/x/last". */
export function describeHandoff(branch: string | null, handoff: Omit<ReportHandoff, 'summary'>): string {
  const at =
    handoff.round === null
      ? `its last commit ${handoff.commit.slice(0, 12)}`
      : `round ${handoff.round} (${handoff.commit.slice(0, 12)})`;
  const last = handoff.moved
    ? `; the last commit ${handoff.last_commit.slice(0, 12)} is kept at ${handoff.last_ref}`
    : '';
  return `${branch ?? 'the branch'} is left at ${at}: ${handoff.reason}${last}`;
}

/** A total drop of more than this many open findings from one round to the next is a key moment. */
export const KEY_DROP = 3;

function ms(from: string, to: string): number {
  return Math.max(0, Date.parse(to) - Date.parse(from));
}

function openOf(letter: Letter): OpenFinding[] {
  return letter.findings.map((f) => ({
    fingerprint: f.fingerprint,
    title: f.title,
    severity: f.severity,
    file: f.file,
    line: f.line_range.start,
    raised_by: f.raised_by,
  }));
}

/**
 * Builds a run's report from its journaled events (one run, in stream order) and the learnings
 * the journal holds for its finding types. Pure: the same events give the same report.
 */
export function buildLoopReport(
  events: readonly JournaledEvent[],
  learnings: readonly ReportLearning[] = [],
): LoopReport {
  const submitted = events.find((e) => e.type === 'PlanSubmitted');
  if (submitted === undefined) throw new RangeError('a loop report needs the run from its PlanSubmitted on');
  const run = events.filter((e) => e.correlation_id === submitted.event_id);
  const rounds: {
    round: number;
    phase: Phase;
    commit: string;
    started_at: string;
    letter: Letter | null;
    critics: ReportCritic[];
    fix: ReportFix | null;
    cost: number;
  }[] = [];
  const moments: KeyMoment[] = [];
  const tests: { round: number; test: string }[] = [];
  let branch: string | null = null;
  let outcome: ReportOutcome = 'running';
  let why = 'the loop is still running';
  let endedAt: string | null = null;
  let escalation: LoopReport['escalation'] = null;
  let handoff: Omit<ReportHandoff, 'summary'> | null = null;
  let cost = 0;
  const byRound = (n: number | undefined) => (n === undefined ? undefined : rounds.find((r) => r.round === n));
  for (const event of run) {
    switch (event.type) {
      case 'BaselineRecorded':
        branch = event.data.branch;
        break;
      case 'RoundStarted':
        rounds.push({
          round: event.data.round,
          phase: event.data.phase,
          commit: event.data.commit,
          started_at: event.occurred_at,
          letter: null,
          critics: [],
          fix: null,
          cost: 0,
        });
        if (event.data.retained_best !== undefined)
          moments.push({
            round: event.data.round,
            at: event.occurred_at,
            kind: 'revert',
            text: event.data.retained_best.detail,
          });
        if (outcome === 'escalated') outcome = 'running';
        // A resumed loop goes on from its last round: an earlier handoff no longer says where the branch is.
        handoff = null;
        break;
      case 'FindingsReported':
        byRound(event.data.round)?.critics.push({
          critic_id: event.data.critic_id,
          outcome: 'reported',
          duration_ms: event.data.duration_ms,
          findings: event.data.findings.length,
        });
        break;
      case 'CriticFailed':
        byRound(event.data.round)?.critics.push({
          critic_id: event.data.critic_id,
          outcome: event.data.reason,
          duration_ms: event.data.duration_ms ?? null,
          findings: 0,
        });
        break;
      case 'LetterWritten': {
        const r = byRound(event.data.letter.round);
        if (r !== undefined && r.letter === null) r.letter = event.data.letter;
        break;
      }
      case 'TestsWritten':
        break;
      case 'FixApplied': {
        const r = byRound(event.data.round);
        if (r === undefined || r.fix !== null) break;
        r.fix = {
          outcome: event.data.outcome,
          strategy: event.data.strategy,
          commit: event.data.commit,
          reason: event.data.reason ?? null,
          lines_changed: event.data.fixes_applied.reduce((n, f) => n + f.lines_changed, 0),
          tests_added: event.data.tests_added,
          duration_ms: event.data.duration_ms,
          patch: event.data.patch ?? null,
        };
        for (const test of event.data.outcome === 'committed' ? event.data.tests_added : [])
          tests.push({ round: event.data.round, test });
        if (event.data.outcome === 'reverted')
          moments.push({
            round: event.data.round,
            at: event.occurred_at,
            kind: 'revert',
            text: `round ${event.data.round}'s fix was reverted: ${event.data.reason ?? 'it broke tests that passed at the baseline'}`,
          });
        break;
      }
      case 'UsageRecorded': {
        cost += event.data.cost_usd;
        const r = byRound(event.data.round) ?? rounds.at(-1);
        if (r !== undefined) r.cost += event.data.cost_usd;
        break;
      }
      case 'PhaseAdvanced':
        moments.push({
          round: event.data.round,
          at: event.occurred_at,
          kind: 'phase',
          text: `${event.data.from.replace('_', ' ')} phase cleared; on to ${event.data.to.replace('_', ' ')}`,
        });
        break;
      case 'EscalationRaised':
        outcome = 'escalated';
        why = `escalated to people (${event.data.reason}): ${event.data.report.trigger.detail}`;
        escalation = {
          reason: event.data.reason,
          detail: event.data.report.trigger.detail,
          recommended_action: event.data.report.recommended_action,
          markdown: event.data.markdown,
        };
        moments.push({
          round: event.data.round,
          at: event.occurred_at,
          kind: 'escalation',
          text: `escalated: ${event.data.reason}`,
        });
        break;
      case 'BranchHandedOff':
        handoff = {
          round: event.data.best_round,
          commit: event.data.best_commit,
          last_commit: event.data.last_commit,
          last_ref: event.data.last_ref,
          moved: event.data.moved,
          reason: event.data.reason,
        };
        branch = event.data.branch;
        break;
      case 'LoopResumed':
        moments.push({
          round: rounds.at(-1)?.round ?? 0,
          at: event.occurred_at,
          kind: 'resume',
          text: `resumed by ${event.data.by}${event.data.raise_cap === undefined ? '' : ` (+${event.data.raise_cap} rounds)`}${event.data.note === undefined ? '' : `: ${event.data.note}`}`,
        });
        break;
      case 'LoopConverged':
        outcome = 'converged';
        why = `converged after ${event.data.rounds} round(s): no critical findings, warnings or deprecations left`;
        branch = event.data.branch;
        endedAt = event.occurred_at;
        break;
      case 'LoopBypassed':
        outcome = 'bypassed';
        why = `the gate chose a ${event.data.verdict.replace('_', ' ')}: one review, no fixes`;
        endedAt = event.occurred_at;
        break;
      case 'LoopStopped':
        outcome = 'stopped';
        why = `stopped by ${event.data.by}${event.data.note === undefined ? '' : `: ${event.data.note}`}`;
        endedAt = event.occurred_at;
        break;
      case 'PlanRejected':
        outcome = 'rejected';
        why = `rejected: ${event.data.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`;
        endedAt = event.occurred_at;
        break;
      default:
        break;
    }
  }
  if (outcome === 'running' && escalation === null)
    why = rounds.length === 0 ? 'waiting for round 1' : `round ${rounds.at(-1)?.round ?? 0} is under way`;
  const last = run.at(-1);
  const lettered = rounds.filter((r): r is (typeof rounds)[number] & { letter: Letter } => r.letter !== null);
  lettered.forEach((r, i) => {
    const previous = lettered[i - 1];
    if (previous === undefined) return;
    const drop = previous.letter.findings.length - r.letter.findings.length;
    if (drop > KEY_DROP)
      moments.push({
        round: r.round,
        at: r.letter.created_at,
        kind: 'drop',
        text: `open findings dropped by ${drop} (${previous.letter.findings.length} → ${r.letter.findings.length})`,
      });
  });
  if (endedAt !== null) moments.push({ round: rounds.at(-1)?.round ?? 0, at: endedAt, kind: 'outcome', text: why });
  // What was fixed: a finding in one letter and absent from the next one, credited to that round's fix.
  const fixed: FixedFinding[] = [];
  lettered.forEach((r, i) => {
    const next = lettered[i + 1];
    if (next === undefined) return;
    const still = new Set(next.letter.findings.map((f) => f.fingerprint));
    for (const f of r.letter.findings) {
      if (still.has(f.fingerprint) || fixed.some((x) => x.fingerprint === f.fingerprint && x.round === r.round))
        continue;
      fixed.push({
        fingerprint: f.fingerprint,
        title: f.title,
        severity: f.severity,
        file: f.file,
        raised_by: f.raised_by,
        round: r.round,
        commit: r.fix?.outcome === 'committed' ? r.fix.commit : null,
      });
    }
  });
  const finalLetter = lettered.at(-1)?.letter ?? null;
  const open = outcome === 'converged' || finalLetter === null ? [] : openOf(finalLetter);
  const types = new Set(lettered.flatMap((r) => r.letter.findings.map((f) => `${f.raised_by}\u0000${f.finding_type}`)));
  const startedAt = submitted.occurred_at;
  const reportRounds: ReportRound[] = rounds.map((r, i) => {
    const next = rounds[i + 1];
    const end = next?.started_at ?? endedAt ?? (escalation !== null ? last?.occurred_at : undefined);
    return {
      round: r.round,
      phase: r.phase,
      commit: r.commit,
      started_at: r.started_at,
      duration_ms: end === undefined ? null : ms(r.started_at, end),
      letter_id: r.letter?.letter_id ?? null,
      counts: r.letter?.counts ?? null,
      findings: r.letter?.findings.length ?? null,
      complete: r.letter?.complete ?? null,
      critics: [...r.critics].sort((a, b) => a.critic_id.localeCompare(b.critic_id)),
      fix: r.fix,
      cost_usd: r.cost,
    };
  });
  return {
    plan: submitted.plan,
    run_id: submitted.event_id,
    title: submitted.data.plan.title,
    outcome,
    why,
    branch,
    started_at: startedAt,
    ended_at: endedAt,
    duration_ms: endedAt === null ? null : ms(startedAt, endedAt),
    rounds: reportRounds,
    trend: {
      rounds: lettered.map((r) => r.round),
      critical: lettered.map((r) => r.letter.counts.critical),
      medium: lettered.map((r) => r.letter.counts.medium),
      low: lettered.map((r) => r.letter.counts.low),
    },
    key_moments: moments.sort((a, b) => a.round - b.round || a.at.localeCompare(b.at)),
    fixed,
    open,
    learnings: learnings.filter((l) => types.has(`${l.critic_id}\u0000${l.finding_type}`)),
    tests_added: tests,
    commits: rounds.flatMap((r) => (r.fix?.outcome === 'committed' && r.fix.commit !== null ? [r.fix.commit] : [])),
    cost_usd: cost,
    escalation,
    handoff: handoff === null ? null : { ...handoff, summary: describeHandoff(branch, handoff) },
  };
}

/** A severity's counts over the rounds with repeats collapsed: `3 → 1 → 0`. */
function path(counts: readonly number[]): string {
  return counts.filter((n, i) => i === 0 || n !== counts[i - 1]).join(' → ');
}

/**
 * The one-screen summary a finished loop ends with, e.g. `add-billing: converged — critical 3 → 1 → 0,
 * medium 2 → 0 in 6 rounds; 3 commits on rloop/add-billing; report: .rloop/reports/add-billing/report.md`.
 */
export function reportSummaryLine(report: LoopReport, reportPath: string | null): string {
  const trends = (['critical', 'medium', 'low'] as const)
    .filter((s) => report.trend[s].some((n) => n > 0))
    .map((s) => `${s} ${path(report.trend[s])}`);
  const rounds = `${report.rounds.length} round${report.rounds.length === 1 ? '' : 's'}`;
  const head = trends.length === 0 ? `no findings in ${rounds}` : `${trends.join(', ')} in ${rounds}`;
  const commits = `${report.commits.length} commit${report.commits.length === 1 ? '' : 's'}${report.branch === null ? '' : ` on ${report.branch}`}`;
  const left =
    report.handoff?.round === null || report.handoff === null
      ? ''
      : `; ${report.branch ?? 'the branch'} left at round ${report.handoff.round}`;
  return `${report.plan}: ${report.outcome} — ${head}; ${commits}${left}${reportPath === null ? '' : `; report: ${reportPath}`}`;
}
