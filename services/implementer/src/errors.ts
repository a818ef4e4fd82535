import { IllegalStateError, RloopError, TransientError } from '@rloop/contracts';

/** Stable error codes of the implementer, so handlers branch on codes, never on messages. */
export const IMPLEMENTER_ERROR_CODES = {
  branchCheckedOut: 'IMPLEMENTER.BRANCH_CHECKED_OUT',
  strategyFailed: 'IMPLEMENTER.STRATEGY_FAILED',
  aborted: 'IMPLEMENTER.ABORTED',
  recordInvalid: 'IMPLEMENTER.RECORD_INVALID',
  commandNotAllowed: 'IMPLEMENTER.COMMAND_NOT_ALLOWED',
  sandboxUnavailable: 'IMPLEMENTER.SANDBOX_UNAVAILABLE',
  agentCredential: 'IMPLEMENTER.AGENT_CREDENTIAL',
} as const;

/** The plan's branch is checked out somewhere we do not own (e.g. the user's own checkout): we will not move it. */
export class BranchCheckedOutError extends IllegalStateError {
  constructor(branch: string, where: string) {
    super(
      IMPLEMENTER_ERROR_CODES.branchCheckedOut,
      `branch ${branch} is checked out at ${where}; rloop only moves it inside its own worktree`,
    );
  }
}

/**
 * A fix strategy ran and failed (a non-zero exit, a timeout, a tool that could not load). The fix
 * cycle turns it into `FixApplied{outcome: failed}`; anything else a strategy throws is unexpected.
 */
export class StrategyFailedError extends RloopError {
  readonly exitCode: number | null;
  readonly outputTail: string;

  constructor(message: string, details: { exitCode?: number | null; outputTail?: string; cause?: unknown } = {}) {
    super(IMPLEMENTER_ERROR_CODES.strategyFailed, message, { cause: details.cause });
    this.exitCode = details.exitCode ?? null;
    this.outputTail = details.outputTail ?? '';
  }
}

/** Work was cancelled (shutdown): nothing is reported, so the message is redelivered and redone. */
export class AbortedError extends TransientError {
  constructor(what: string) {
    super(IMPLEMENTER_ERROR_CODES.aborted, `${what} was aborted`);
  }
}

/** A record rloop stored in the repository no longer parses (written by an incompatible version, or edited). */
export class RecordInvalidError extends RloopError {
  constructor(ref: string, detail: string) {
    super(IMPLEMENTER_ERROR_CODES.recordInvalid, `the record at ${ref} is invalid: ${detail}`);
  }
}

/**
 * A plan's command is not on the operator's allowlist (config/trust.yaml `commands.allow`). The
 * gate rejects such plans; the implementer refuses them again (a forged request, or a gate with
 * another configuration), and the refusal becomes a failed fix or a failing baseline.
 */
export class CommandNotAllowedError extends RloopError {
  constructor(message: string) {
    super(IMPLEMENTER_ERROR_CODES.commandNotAllowed, message);
  }
}

/** The operator asked for a sandbox this machine cannot provide: the implementer does not start without it. */
export class SandboxUnavailableError extends RloopError {
  constructor(message: string) {
    super(IMPLEMENTER_ERROR_CODES.sandboxUnavailable, message);
  }
}

/** A coding agent's credential the operator named (a variable, a file) is not there: the implementer does not start without it. */
export class AgentCredentialError extends RloopError {
  constructor(message: string) {
    super(IMPLEMENTER_ERROR_CODES.agentCredential, message);
  }
}
