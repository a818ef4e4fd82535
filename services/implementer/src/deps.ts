import type { AgentsTrust } from '@rloop/domain';
import type { CommitIdentity } from '@rloop/git';
import type { ProcessLimits } from './shell/run-shell.js';

/** What the operator allows plan commands, checked again here (the gate checked it first). */
export interface CommandRules {
  /** config/trust.yaml `commands.allow`: exact command lines and /regexes/. */
  readonly allow: readonly string[];
  /** config/trust.yaml `agents`: the coding agents plans may use, their models and extra arguments. Default: none. */
  readonly agents?: AgentsTrust;
  readonly limits?: ProcessLimits;
  /** Where the allowlist lives, named in a refusal. Default `config/trust.yaml`. */
  readonly trustFile?: string;
}

/** What every implementer step needs from the service around it (built once from config). */
export interface ImplementerEnv {
  /** Root of rloop's scratch space: worktrees go to `<workRoot>/worktrees/<slug>`. */
  readonly workRoot: string;
  /** The environment the plan's test command and the strategies run with (an allowlist of the service's, see shell/environment.ts). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly commands: CommandRules;
  readonly testTimeoutMs: number;
  /** Aborted on shutdown: the step stops without reporting, so the message is redelivered. */
  readonly signal?: AbortSignal;
  /** Author and committer of rloop's commits. Default `rloop <rloop@localhost>`. */
  readonly identity?: CommitIdentity;
  /** Milliseconds for `duration_ms` (injected so tests can pin it). Default: performance.now. */
  readonly clock?: () => number;
  /** Record what the plan's test runs execute (V8 coverage) with their results. Default false. */
  readonly recordCoverage?: boolean;
}
