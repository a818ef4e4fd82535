import { join } from 'node:path';
import {
  CRITIC_HEALTH_DEFAULTS,
  CommonEnvironment,
  type CommonSettings,
  commonSettings,
  loadYamlConfig,
  parseEnvironment,
} from '@rloop/bus';
import { CriticCatalogue, DEFAULT_UNSERVED_FIX_POLICY, LoopConfig } from '@rloop/domain';
import { z } from 'zod';

const PanelEnvironment = CommonEnvironment.extend({
  /** Only its presence matters: without it, critics that need an LLM are left out of the panel. Never logged. */
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  /** The fleet's critic heartbeat interval; the registry bucket (created by the first service to start) expires entries after three. */
  RLOOP_CRITIC_HEARTBEAT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(CRITIC_HEALTH_DEFAULTS.heartbeatIntervalMs),
  /** How long a starting panel waits for the catalogue's critics to register before it decides anything (default: three heartbeats). */
  RLOOP_PANEL_REGISTRY_GRACE_MS: z.coerce.number().int().min(0).max(600_000).optional(),
  /**
   * How long after its letter a requested fix may stay unserved (its branch held elsewhere, the
   * repository unreachable) — retried with backoff meanwhile — before the loop escalates with
   * reason implementer_failed. Default 10 minutes.
   */
  RLOOP_FIX_DEADLINE_MS: z.coerce.number().int().min(1000).default(DEFAULT_UNSERVED_FIX_POLICY.deadline_ms),
});

/** How the panel reads the critic registry. */
export interface RegistrySettings {
  readonly heartbeatIntervalMs: number;
  /** Background re-read of the bucket. */
  readonly refreshMs: number;
  /** Start-up wait for the catalogue's critics (see PanelRegistry). */
  readonly graceMs: number;
  /** A snapshot older than this is read again before a decision (the background read may be failing). */
  readonly maxSnapshotAgeMs: number;
  /**
   * How long a round retried because core critics were unavailable waits for them to heartbeat
   * again (a NATS restart, a busy machine) before it runs without them.
   */
  readonly retryWaitMs: number;
}

export interface PanelConfig extends CommonSettings {
  readonly catalogue: CriticCatalogue;
  /** config/loop.yaml: best-round retention and the retry backoff of incomplete rounds. */
  readonly loop: LoopConfig;
  readonly anthropicConfigured: boolean;
  readonly registry: RegistrySettings;
  /** RLOOP_FIX_DEADLINE_MS: the guard escalates a plan left in "fixing" past it. */
  readonly fixDeadlineMs: number;
}

/** Parses the panel's environment, config/critics.yaml and config/loop.yaml once, at start (a bad file fails the start). */
export async function loadPanelConfig(env: NodeJS.ProcessEnv = process.env): Promise<PanelConfig> {
  const parsed = parseEnvironment(PanelEnvironment, env, 'panel');
  const common = commonSettings(parsed, 'panel');
  const catalogue = await loadYamlConfig(join(common.configDir, 'critics.yaml'), CriticCatalogue);
  const loop = await loadYamlConfig(join(common.configDir, 'loop.yaml'), LoopConfig);
  const heartbeatIntervalMs = parsed.RLOOP_CRITIC_HEARTBEAT_MS;
  // TODO(calibration): a refresh every half heartbeat (at most 1 s) and three heartbeats of start-up grace are guesses; settle them from
  // how long critic-runner and critic services take to start, and how quickly people want a dead critic noticed.
  const refreshMs = Math.min(1_000, Math.max(100, Math.floor(heartbeatIntervalMs / 2)));
  const registry: RegistrySettings = {
    heartbeatIntervalMs,
    refreshMs,
    graceMs: parsed.RLOOP_PANEL_REGISTRY_GRACE_MS ?? heartbeatIntervalMs * CRITIC_HEALTH_DEFAULTS.ttlHeartbeats,
    maxSnapshotAgeMs: Math.max(5 * refreshMs, heartbeatIntervalMs),
    // TODO(calibration): twelve heartbeats (a minute by default) outlasts a restart of NATS or a critic service.
    retryWaitMs: heartbeatIntervalMs * 12,
  };
  return Object.freeze({
    ...common,
    catalogue,
    loop,
    anthropicConfigured: parsed.ANTHROPIC_API_KEY !== undefined,
    registry,
    fixDeadlineMs: parsed.RLOOP_FIX_DEADLINE_MS,
  });
}
