import type { FindingTimeline, Heuristic, Phase, StuckReport } from '@rloop/contracts';
import type { DisagreementSide, LoopState } from '../loop/state.js';
import { maskSecrets } from '../secrets/mask.js';
import { mdCode, mdFence, mdText } from '../text/escape.js';

export interface StuckTrigger {
  readonly kind: StuckReport['trigger']['kind'];
  readonly heuristic?: Heuristic;
  readonly detail: string;
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
  heuristic: 'The loop is stuck in a pattern (see the heuristic). Look at the attempts below, settle the design question by hand, then `rloop resume <slug>` or `rloop stop <slug>`.',
  budget: 'The LLM budget was reached. Raise the budget in config if the spend is justified, then `rloop resume <slug>`; otherwise `rloop stop <slug>`.',
  implementer_failed: 'The implementer could not produce a change. Check its output in the journal, fix the environment or the plan, then `rloop resume <slug>`.',
  critic_failures: 'A core critic kept failing, so no round could count as clean. Check the critic (`rloop critics`, its logs), then `rloop resume <slug>`.',
};

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
export function buildStuckReport(state: LoopState, trigger: StuckTrigger, timelines: readonly FindingTimeline[] | null = null): StuckReport {
  if (state.run_id === null) throw new Error('a stuck report needs a run');
  return {
    plan: state.plan,
    run_id: state.run_id,
    phase: state.phase,
    round: Math.max(1, state.round),
    trigger: { kind: trigger.kind, ...(trigger.heuristic === undefined ? {} : { heuristic: trigger.heuristic }), detail: trigger.detail.slice(0, 4000) },
    findings: [...(timelines ?? timelinesFromState(state))],
    ...(trigger.disagreement === undefined || trigger.disagreement.length === 0 ? {} : { disagreement: trigger.disagreement.slice(0, 10).map((side) => ({ ...side })) }),
    recommended_action: (trigger.heuristic === undefined || trigger.kind !== 'heuristic' ? RECOMMENDATIONS[trigger.kind] : HEURISTIC_ACTIONS[trigger.heuristic]).replaceAll('<slug>', state.plan),
    ...(state.baseline === null ? {} : { branch: state.baseline.branch }),
    ...(state.head === null ? {} : { commit: state.head }),
  };
}

const PHASE_NAMES: Readonly<Record<Phase, string>> = { critical: 'critical', medium: 'medium', low: 'low', final_sweep: 'final sweep' };

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
        lines.push(`- round ${a.round}: ${a.lines_changed} lines changed${a.commit ? ` in ${mdCode(a.commit.slice(0, 12))}` : ' (not committed)'}`);
        if (a.diff) lines.push('', mdFence(a.diff, 'diff'), '');
      }
      lines.push('');
    }
  }
  return maskSecrets(`${lines.join('\n').trimEnd()}\n`);
}
