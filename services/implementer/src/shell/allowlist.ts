import { type PlanCommands, agentIssues, commandIssues } from '@rloop/domain';
import type { CommandRules } from '../deps.js';
import { CommandNotAllowedError } from '../errors.js';

/**
 * The implementer's own check of a plan's commands against the operator's allowlist (defence in
 * depth: the gate rejected such plans already, but a request can be forged or the gate configured
 * differently). Covers a coding agent too: the agent, its model and its extra arguments. Null when
 * every command may run.
 */
export function commandRefusal(plan: PlanCommands, rules: CommandRules): CommandNotAllowedError | null {
  const issues = [
    ...commandIssues(plan, rules.allow, rules.trustFile),
    ...agentIssues(plan.implementer, rules.agents ?? {}, rules.trustFile),
  ];
  if (issues.length === 0) return null;
  return new CommandNotAllowedError(
    `rloop refused to run the plan: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`,
  );
}
