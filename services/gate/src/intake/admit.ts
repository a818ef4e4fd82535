import type { Issue, PlanSpec } from '@rloop/contracts';
import { type AgentsTrust, agentIssues, commandIssues, resolvePlanFiles } from '@rloop/domain';
import { type RepositoryPolicy, type RepositorySnapshot, inspectRepository } from './repository.js';

export interface Admission {
  readonly plan: PlanSpec;
  readonly repository: RepositorySnapshot;
  /** The plan's globs resolved at its ref. */
  readonly files: readonly string[];
}

export type AdmissionResult =
  { readonly ok: true; readonly admission: Admission } | { readonly ok: false; readonly errors: Issue[] };

export interface AdmissionOptions {
  readonly repoCacheDir: string;
  readonly anthropicConfigured: boolean;
  /** Commands plans may run (config/trust.yaml `commands.allow`). */
  readonly commandAllow: readonly string[];
  /** Coding agents plans may use, with their models and extra arguments (config/trust.yaml `agents`). */
  readonly agents: AgentsTrust;
  readonly repositories: RepositoryPolicy;
  /** Where the allowlists live, named in rejections. */
  readonly trustFile: string;
}

/**
 * Everything the gate checks beyond the schema: the operator allows the plan's commands, the
 * repository may be used (allowed roots, schemes and hosts), exists and the ref resolves, every
 * file entry is relative, inside the repository, a valid glob and matches something at the ref,
 * and the implementer strategy can run on this fleet (a coding agent, its model and its extra
 * arguments are allowed).
 */
export async function admitPlan(plan: PlanSpec, options: AdmissionOptions): Promise<AdmissionResult> {
  // Posting a plan means running its commands on the implementer's host: only the ones the operator listed.
  const errors: Issue[] = [
    ...commandIssues(plan, options.commandAllow, options.trustFile),
    ...agentIssues(plan.implementer, options.agents, options.trustFile),
  ];
  if (plan.implementer.strategy === 'anthropic' && !options.anthropicConfigured) {
    errors.push({
      path: 'implementer.strategy',
      message:
        'the anthropic strategy needs ANTHROPIC_API_KEY on this fleet; use autofix or command, or configure a key',
    });
  }
  const inspected = await inspectRepository(plan.repo, {
    cacheDir: options.repoCacheDir,
    policy: options.repositories,
  });
  if (!inspected.ok) return { ok: false, errors: [...errors, ...inspected.errors] };
  const resolved = resolvePlanFiles(plan.files, inspected.snapshot.files);
  errors.push(...resolved.issues);
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, admission: { plan, repository: inspected.snapshot, files: resolved.files } };
}
