import { hostname } from 'node:os';
import { CRITIC_HEALTH_DEFAULTS, parseEnvironment } from '@rloop/bus';
import { z } from 'zod';

const RegistryEnvironment = z.object({
  /** How often the runner heartbeats for the critics it hosts (the registry bucket expires entries after three). */
  RLOOP_CRITIC_HEARTBEAT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(CRITIC_HEALTH_DEFAULTS.heartbeatIntervalMs),
  /** This replica's name in the registry; replicas need distinct ones (default `critic-runner@<host>:<pid>`). */
  RLOOP_CRITIC_INSTANCE_ID: z.string().min(1).max(128).optional(),
});

export interface RegistrySettings {
  readonly heartbeatIntervalMs: number;
  readonly instanceId: string;
  readonly version: string;
}

/** Parses the runner's registry settings once, at start. */
export function loadRegistrySettings(env: NodeJS.ProcessEnv = process.env): RegistrySettings {
  const parsed = parseEnvironment(RegistryEnvironment, env, 'critic-runner');
  return Object.freeze({
    heartbeatIntervalMs: parsed.RLOOP_CRITIC_HEARTBEAT_MS,
    instanceId: parsed.RLOOP_CRITIC_INSTANCE_ID ?? `critic-runner@${hostname()}:${process.pid}`,
    version: 'builtin',
  });
}
