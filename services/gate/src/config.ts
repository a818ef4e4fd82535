import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { CommonEnvironment, type CommonSettings, commonSettings, loadYamlConfig, parseEnvironment } from '@rloop/bus';
import {
  type AgentsTrust,
  RefinementTriggers,
  type ScopeLockMode,
  TRUST_CONFIG_FILE,
  TrustConfig,
} from '@rloop/domain';
import { z } from 'zod';
import type { RepositoryPolicy } from './intake/repository.js';

const GateEnvironment = CommonEnvironment.extend({
  /** Only its presence matters here: a plan asking for the anthropic implementer needs it. Never logged. */
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  /** More local repository roots, `:`-separated (a deployment's mount point, e.g. /repos), besides config/trust.yaml's. */
  RLOOP_REPO_ROOTS: z.string().min(1).optional(),
});

export interface GateConfig extends CommonSettings {
  readonly triggers: RefinementTriggers;
  /** Where repositories given by URL are cloned. */
  readonly repoCacheDir: string;
  readonly anthropicConfigured: boolean;
  /** Commands plans may run (config/trust.yaml `commands.allow`). */
  readonly commandAllow: readonly string[];
  /** Coding agents plans may use (config/trust.yaml `agents`). */
  readonly agents: AgentsTrust;
  /** Where repositories may come from (config/trust.yaml `repositories`, roots resolved). */
  readonly repositories: RepositoryPolicy;
  /** Path of config/trust.yaml, named in rejections. */
  readonly trustFile: string;
  /** What a plan overlapping a running loop's files gets (config/trust.yaml `scope_lock.on_overlap`). */
  readonly scopeLock: ScopeLockMode;
}

/** A local root as written in trust.yaml: absolute, `~/…` (the home directory), or relative to $RLOOP_HOME. */
export function resolveRoot(entry: string, home: string): string {
  if (entry === '~' || entry.startsWith('~/')) return join(homedir(), entry.slice(1));
  return isAbsolute(entry) ? resolve(entry) : resolve(home, entry);
}

/** Parses the gate's environment, config/refinement-triggers.yaml and config/trust.yaml once, at start. */
export async function loadGateConfig(env: NodeJS.ProcessEnv = process.env): Promise<GateConfig> {
  const parsed = parseEnvironment(GateEnvironment, env, 'gate');
  const common = commonSettings(parsed, 'gate');
  const triggers = await loadYamlConfig(join(common.configDir, 'refinement-triggers.yaml'), RefinementTriggers);
  const trustFile = join(common.configDir, TRUST_CONFIG_FILE);
  const trust = await loadYamlConfig(trustFile, TrustConfig);
  const roots = [
    ...trust.repositories.local_roots,
    ...(parsed.RLOOP_REPO_ROOTS?.split(':').filter((r) => r !== '') ?? []),
  ];
  return Object.freeze({
    ...common,
    triggers,
    repoCacheDir: join(common.home, 'repos'),
    anthropicConfigured: parsed.ANTHROPIC_API_KEY !== undefined,
    commandAllow: trust.commands.allow,
    agents: trust.agents,
    repositories: {
      localRoots: roots.map((root) => resolveRoot(root, common.home)),
      url: {
        schemes: trust.repositories.url.schemes,
        hosts: trust.repositories.url.hosts,
        localAddresses: trust.repositories.url.local_addresses,
        configFile: trustFile,
      },
    },
    trustFile,
    scopeLock: trust.scope_lock.on_overlap,
  });
}
