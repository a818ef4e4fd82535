import type { JournaledEvent } from '@rloop/contracts';
import type { RoundRecord } from '../loop/state.js';
import type { CriticReport } from '../synthesis/synthesize.js';
import { isFirstAnswer } from './answers.js';

/**
 * The critics' reports for one round, from the events that follow its RoundStarted: the first
 * answer of each dispatched critic counts (isFirstAnswer, the rule the loop state folds by too), in dispatch order.
 * A core critic the panel could not dispatch (no live heartbeat) has a CriticFailed `unavailable`
 * at the round's start: it is reported too, after the dispatched ones, so the letter is incomplete.
 */
export function roundReports(
  current: RoundRecord,
  runId: string,
  events: readonly JournaledEvent[],
): { reports: CriticReport[]; lastAt: string } {
  const answers = new Map<string, CriticReport>();
  let lastAt = current.started_at;
  const core = new Map(current.critics.map((c) => [c.critic_id, c.core]));
  for (const event of events) {
    if (event.correlation_id !== runId) continue;
    if (event.type !== 'FindingsReported' && event.type !== 'CriticFailed') continue;
    const missingCore =
      event.type === 'CriticFailed' &&
      event.data.core &&
      event.data.reason === 'unavailable' &&
      !core.has(event.data.critic_id);
    if (
      !isFirstAnswer(current.round, (criticId) => answers.has(criticId), event.data) ||
      !(core.has(event.data.critic_id) || missingCore)
    )
      continue;
    const isCore = core.get(event.data.critic_id) ?? missingCore;
    if (event.type === 'FindingsReported') {
      answers.set(event.data.critic_id, {
        critic_id: event.data.critic_id,
        core: isCore,
        outcome: 'reported',
        findings: event.data.findings,
        ...(event.data.coverage === undefined ? {} : { coverage: event.data.coverage }),
        ...(event.data.suppressed === undefined ? {} : { suppressed: event.data.suppressed }),
        ...(event.data.repo_config === undefined ? {} : { repo_config: event.data.repo_config }),
      });
    } else {
      answers.set(event.data.critic_id, {
        critic_id: event.data.critic_id,
        core: isCore,
        outcome: event.data.reason === 'timed_out' ? 'timed_out' : 'failed',
        findings: [],
        message: `${event.data.reason}: ${event.data.message}`,
        ...(event.data.coverage === undefined ? {} : { coverage: event.data.coverage }),
      });
    }
    if (event.occurred_at > lastAt) lastAt = event.occurred_at;
  }
  const reports = current.critics.flatMap((c) => {
    const report = answers.get(c.critic_id);
    return report === undefined ? [] : [report];
  });
  for (const [criticId, report] of answers) if (!core.has(criticId)) reports.push(report);
  return { reports, lastAt };
}
