import { CommonEnvironment, type CommonSettings, commonSettings, parseEnvironment } from '@rloop/bus';
import { z } from 'zod';

const ImplementerEnvironment = CommonEnvironment.extend({
  /** Longest a plan's test command may run. */
  RLOOP_TEST_TIMEOUT_MS: z.coerce.number().int().min(1000).default(600_000),
  /** Longest a `command` strategy (a coding-agent CLI) may run per round. */
  RLOOP_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(1000).default(1_800_000),
});

export interface ImplementerConfig extends CommonSettings {
  readonly testTimeoutMs: number;
  readonly commandTimeoutMs: number;
}

/** Parses the implementer's environment once, at start. */
export function loadImplementerConfig(env: NodeJS.ProcessEnv = process.env): ImplementerConfig {
  const parsed = parseEnvironment(ImplementerEnvironment, env, 'implementer');
  return Object.freeze({ ...commonSettings(parsed), testTimeoutMs: parsed.RLOOP_TEST_TIMEOUT_MS, commandTimeoutMs: parsed.RLOOP_COMMAND_TIMEOUT_MS });
}
