import { RloopError, type RloopErrorOptions, ValidationError, type Issue } from '@rloop/contracts';

/** Stable codes of the errors the critic SDK raises. */
export const CRITIC_SDK_ERROR_CODES = {
  invalidCritic: 'CRITIC_SDK.INVALID_CRITIC',
  invalidOptions: 'CRITIC_SDK.INVALID_OPTIONS',
  connectFailed: 'CRITIC_SDK.CONNECT_FAILED',
  startFailed: 'CRITIC_SDK.START_FAILED',
  stopping: 'CRITIC_SDK.STOPPING',
} as const;

/** A critic definition or service option that cannot work (found at start, before anything runs). */
export class CriticDefinitionError extends ValidationError {
  constructor(message: string, issues: readonly Issue[]) {
    super(CRITIC_SDK_ERROR_CODES.invalidCritic, message, issues);
  }
}

/** The critic service could not start: NATS unreachable, streams or the registry bucket not usable. */
export class CriticServiceStartError extends RloopError {
  constructor(
    code: (typeof CRITIC_SDK_ERROR_CODES)['connectFailed' | 'startFailed'],
    message: string,
    options: RloopErrorOptions = {},
  ) {
    super(code, message, options);
  }
}
