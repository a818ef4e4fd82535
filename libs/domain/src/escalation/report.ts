import type { CriticFailureReason, FindingTimeline, Heuristic, Phase, StuckReport } from '@rloop/contracts';
import type { DisagreementSide, LoopState } from '../loop/state.js';
import { maskSecrets } from '../secrets/mask.js';
import { mdCode, mdFence, mdText } from '../text/escape.js';

export interface StuckTrigger {
  readonly kind: StuckReport['trigger']['kind'];
  readonly heuristic?: Heuristic;
  readonly detail: string;
  /** What people should do, when the trigger knows better than its kind's general advice. */
  readonly action?: string;
  /** Both asks of a critic disagreement, for the disagreement letter. */
  readonly disagreement?: readonly DisagreementSide[];
}

/** What people should do about each heuristic (the spec's recovery actions, made concrete). */
const HEURISTIC_ACTIONS: Readonly<Record<Heuristic, string>> = {
  persistent_issue:
    'The same finding came back round after round and the implementer found no new way at it. Fix it by hand on the branch (the rounds and attempts are below), or, if it is a false positive, suppress it at the source; then `rloop resume <slug>`. `rloop stop <slug>` ends the loop.',
  oscillation:
    'A fix did not hold: the finding went away and came back (see the ● ○ rounds below), or fixing one finding brought another back. Look for two changes undoing each other or a test that does not pin the fixed behaviour; fix it by hand, then `rloop resume <slug>` (or `rloop stop <slug>`).',
  implementer_wall:
    'The implementer tried several different approaches (each diff below) and the issue persists: the plan may need a rethink. Split the plan, change its approach or give the implementer more context, then `rloop resume <slug>`; or `rloop stop <slug>`.',
  critic_disagreement:
    'Two critics ask for conflicting changes on the same code (both asks below). rloop does not settle this by priority rules: decide which one is right, adjust or suppress the other rule for this code, then `rloop resume <slug>`; or `rloop stop <slug>`.',
  flat_trend:
    'Severity is not going down: each round trades findings for others of the same weight. If the trend below shows real progress, `rloop resume <slug> --raise-cap N`; otherwise stop (`rloop stop <slug>`) and rethink the plan.',
  stall:
    'The implementer changed nothing for several rounds. Check it (its command, its output in `rloop journal <slug> --format json`), fix the cause, then `rloop resume <slug>`; or `rloop stop <slug>`.',
};

const RECOMMENDATIONS: Readonly<Record<StuckReport['trigger']['kind'], string>> = {
  soft_cap:
    'The phase used its round budget without coming clean. Read the open findings below: if they are real, fix them by hand on the branch and `rloop resume <slug>`; if the plan is too broad, split it; if a finding is wrong, suppress it at the source and resume; to give the loop more rounds, `rloop resume <slug> --raise-cap N`.',
  heuristic:
    'The loop is stuck in a pattern (see the heuristic). Look at the attempts below, settle the design question by hand, then `rloop resume <slug>` or `rloop stop <slug>`.',
  budget:
    'The LLM budget was reached. Raise the budget in config if the spend is justified, then `rloop resume <slug>`; otherwise `rloop stop <slug>`.',
  critic_failures:
    'A core critic kept failing, so no round could count as clean. Check the critic (`rloop critics`, its logs), then `rloop resume <slug>`.',
  implementer_failed:
    "No implementer could make the requested fix before the deadline (RLOOP_FIX_DEADLINE_MS), retried with backoff: the detail says why (the plan's repository unreachable from the implementers' hosts, its credentials — RLOOP_GIT_CREDENTIALS — refused, the branch held elsewhere). Fix the cause (`rloop journal <slug>`, the implementers' logs), then `rloop resume <slug>`; or `rloop stop <slug>`.",
};

/** Said with every escalation of a loop that has a branch: the implementer hands it off at the best round (BranchHandedOff). */
const HANDOFF_NOTE =
  " Meanwhile the implementer leaves `<branch>` at the best round's commit (fewest open findings by severity), with its last commit kept at `refs/rloop/<slug>/last`; `rloop report <slug>` says which round and why.";

/**
 * What to fix when a core critic cannot run, by critic (where we know its needs) and by reason:
 * the advice names the setting, not just the symptom. `<critic>` and `<slug>` are filled in.
 */
const CRITIC_NEEDS: Readonly<Record<string, Partial<Record<CriticFailureReason, string>>>> = {
  'toolchain/dependency-audit': {
    not_runnable:
      "npm audit could not run (its message above says why): give the repository a lockfile if it has none (a lockfile tells it what is installed: `npm install --package-lock-only`), and configure the advisory source it uses — the npm registry in the repository's or the critic-runner's `.npmrc` (`registry=`, with a token if it needs one, reachable from the critic-runner's host), or osv.dev's exports offline (`npx rloop advisories update`, then `RLOOP_ADVISORIES` for the critic-runner) — or take toolchain/dependency-audit out of `core` in config/critics.yaml if this project cannot be audited",
  },
  'toolchain/compiler-linter': {
    not_runnable:
      "the compiler or linter could not run on the checkout: install the toolchain the repository needs on the critic-runner's host (its message above says what is missing)",
  },
};

const REASON_NEEDS: Readonly<Record<CriticFailureReason, string>> = {
  not_runnable:
    "<critic> cannot run here: give it what its message above says is missing (a tool, a configuration, network access from the critic-runner's host), or take it out of `core` in config/critics.yaml",
  unauthorised:
    "<critic>'s credentials were refused: set a valid key where it runs (ANTHROPIC_API_KEY in the critic-runner's environment for the LLM critics, or the credential its critic service uses)",
  unavailable:
    'nothing hosting <critic> is alive: start a critic-runner (or the critic service that hosts it) so it heartbeats again — `rloop critics` shows who is alive',
  crashed: "<critic> crashed: look at its message above and the critic-runner's log",
  timed_out: '<critic> ran out of time: raise its `timeout_ms` in config/critics.yaml or give its host more room',
  invalid_output: '<critic> answered with output that does not parse: check its version and its prompt',
  rate_limited: "<critic> was rate-limited by its provider: wait, or raise the account's limits",
  no_files_analysed:
    '<critic> analysed none of the files it supports: its coverage in the letter says what it considered and why each was skipped (size, parse error, a link out of the checkout)',
};

/** The recommended action for a core critic that cannot run (see CRITIC_NEEDS). */
export function infrastructureAction(criticId: string, reason: CriticFailureReason): string {
  const need = CRITIC_NEEDS[criticId]?.[reason] ?? REASON_NEEDS[reason];
  return `${need.replaceAll('<critic>', criticId)}; then \`rloop resume <slug>\` (or \`rloop stop <slug>\`).`;
}

/** Timelines for the open findings when no richer projection is at hand: present in the last round. */
function timelinesFromState(state: LoopState): FindingTimeline[] {
  return state.last_findings.map((f) => ({
    fingerprint: f.fingerprint,
    title: f.title,
    file: f.file,
    line_range: { start: f.line_range.start, end: f.line_range.end },
    severity: f.severity,
    category: f.category,
    raised_by: [f.raised_by],
    rounds: [{ round: state.round, present: true }],
    attempts: [],
  }));
}

/** The stuck-issue report an escalation carries (JSON; Markdown is rendered from it). */
export function buildStuckReport(
  state: LoopState,
  trigger: StuckTrigger,
  timelines: readonly FindingTimeline[] | null = null,
): StuckReport {
  if (state.run_id === null) throw new Error('a stuck report needs a run');
  return {
    plan: state.plan,
    run_id: state.run_id,
    phase: state.phase,
    round: Math.max(1, state.round),
    trigger: {
      kind: trigger.kind,
      ...(trigger.heuristic === undefined ? {} : { heuristic: trigger.heuristic }),
      detail: trigger.detail.slice(0, 4000),
    },
    findings: [...(timelines ?? timelinesFromState(state))],
    ...(trigger.disagreement === undefined || trigger.disagreement.length === 0
      ? {}
      : { disagreement: trigger.disagreement.slice(0, 10).map((side) => ({ ...side })) }),
    recommended_action:
      `${trigger.action ?? (trigger.heuristic === undefined || trigger.kind !== 'heuristic' ? RECOMMENDATIONS[trigger.kind] : HEURISTIC_ACTIONS[trigger.heuristic])}${state.baseline === null ? '' : HANDOFF_NOTE.replaceAll('<branch>', state.baseline.branch)}`
        .replaceAll('<slug>', state.plan)
        .slice(0, 4000),
    ...(state.baseline === null ? {} : { branch: state.baseline.branch }),
    ...(state.head === null ? {} : { commit: state.head }),
  };
}

const PHASE_NAMES: Readonly<Record<Phase, string>> = {
  critical: 'critical',
  medium: 'medium',
  low: 'low',
  final_sweep: 'final sweep',
};

/** Renders a stuck report for people (pager, chat, `rloop escalations`); escaped, and masked for secrets. */
export function renderStuckReportMarkdown(report: StuckReport): string {
  const lines = [
    `# Escalation: ${report.plan} is stuck`,
    '',
    `**Why:** ${report.trigger.kind.replaceAll('_', ' ')}${report.trigger.heuristic ? ` (${report.trigger.heuristic.replaceAll('_', ' ')})` : ''} — ${mdText(report.trigger.detail)}`,
    '',
    `**Where:** round ${report.round}, ${PHASE_NAMES[report.phase]} phase${report.branch ? `, branch ${mdCode(report.branch)}` : ''}${report.commit ? ` at ${mdCode(report.commit.slice(0, 12))}` : ''}.`,
    '',
    `**Recommended action:** ${mdText(report.recommended_action)}`,
    '',
  ];
  if (report.disagreement !== undefined && report.disagreement.length > 0) {
    lines.push('## Disagreement (not settled by priority rules)', '');
    for (const side of report.disagreement) {
      lines.push(
        `- **${mdText(side.critic_id)}** (${mdCode(side.finding_type)}) at ${mdCode(`${side.file}:${side.line_range.start}-${side.line_range.end}`)}: ${mdText(side.title)}`,
        `  - asks for: ${mdText(side.expected_behaviour)}`,
      );
    }
    lines.push('');
  }
  lines.push(`## Open findings (${report.findings.length})`, '');
  if (report.findings.length === 0) lines.push('_No open findings were recorded._');
  for (const f of report.findings) {
    const seen = f.rounds.map((r) => `${r.round}${r.present ? '●' : '○'}`).join(' ');
    lines.push(
      `### ${mdText(f.title)}`,
      '',
      `${mdCode(`${f.file}:${f.line_range.start}`)} · ${f.severity} · ${f.category} · raised by ${f.raised_by.map(mdText).join(', ')} · fingerprint ${mdCode(f.fingerprint)}`,
      '',
      `Rounds (● present, ○ absent): ${seen}`,
      '',
    );
    if (f.attempts.length > 0) {
      lines.push('Fix attempts:', '');
      for (const a of f.attempts) {
        lines.push(
          `- round ${a.round}: ${a.lines_changed} lines changed${a.commit ? ` in ${mdCode(a.commit.slice(0, 12))}` : ' (not committed)'}`,
        );
        if (a.diff) lines.push('', mdFence(a.diff, 'diff'), '');
      }
      lines.push('');
    }
  }
  return maskSecrets(`${lines.join('\n').trimEnd()}\n`);
}
