import type { FindingTimeline, JournaledEvent } from '@rloop/contracts';
import { renderStuckReportMarkdown } from './report.js';

/**
 * Puts the journal's finding timelines into the stuck reports of the escalations among `decisions`
 * (markdown rendered again); other decisions pass unchanged. The timelines are read only after a
 * decision escalates (escalations are rare), so the decider runs once and the report is completed here.
 * No timelines (an empty list) keep the report's own, from the loop state.
 */
export function withTimelines(
  decisions: readonly JournaledEvent[],
  timelines: readonly FindingTimeline[],
): JournaledEvent[] {
  if (timelines.length === 0) return [...decisions];
  return decisions.map((decision) => {
    if (decision.type !== 'EscalationRaised') return decision;
    const report = { ...decision.data.report, findings: [...timelines] };
    return { ...decision, data: { ...decision.data, report, markdown: renderStuckReportMarkdown(report) } };
  });
}
