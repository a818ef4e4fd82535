import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { DEFAULT_NAMESPACE, ValidationError, toIssues } from '@rloop/contracts';
import { z } from 'zod';
import { LOG_FORMATS, LOG_LEVEL_NAMES, type LogLevelName } from './logger.js';

/** Environment every service reads. Service config.ts files extend it with their own variables. */
export const CommonEnvironment = z.object({
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  RLOOP_NAMESPACE: z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'use 1-32 of [a-z0-9_-], starting with a letter').default(DEFAULT_NAMESPACE),
  RLOOP_LOG_FORMAT: z.enum(LOG_FORMATS).default('plain'),
  /** Where services keep local state: worktrees, caches, the embedded journal. */
  RLOOP_HOME: z.string().min(1).default('.rloop'),
  /** Directory of refinement-triggers.yaml and critics.yaml. */
  RLOOP_CONFIG_DIR: z.string().min(1).optional(),
  /** How long a service keeps retrying an unreachable NATS at start before it exits. */
  RLOOP_NATS_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
  /** How soon a message held by a service that died is delivered again (every consumer's ack wait). */
  RLOOP_ACK_WAIT_MS: z.coerce.number().int().min(1_000).optional(),
  /** The lowest log level written. */
  RLOOP_LOG_LEVEL: z.enum(LOG_LEVEL_NAMES).default('info'),
  /** Port of /healthz, /readyz and /metrics (the console's pages too); 0 = off. `rloop up` gives each service its own. */
  RLOOP_HTTP_PORT: z.coerce.number().int().min(0).max(65_535).default(0),
  /** Address that port listens on. */
  RLOOP_HTTP_HOST: z.string().min(1).default('127.0.0.1'),
  /** OTLP/HTTP collector (e.g. `http://collector:4318`): traces go to `<it>/v1/traces`. Unset: tracing off. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  /** The full traces URL, over OTEL_EXPORTER_OTLP_ENDPOINT. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
});
export type CommonEnvironment = z.infer<typeof CommonEnvironment>;

/**
 * Parses a service's environment once, at start. On a bad or missing variable it throws a
 * ValidationError whose message names every variable at fault, so the service exits with one
 * clear line. Empty strings count as unset.
 */
export function parseEnvironment<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv, service: string): Readonly<z.infer<S>> {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const issues = toIssues(parsed.error);
    throw new ValidationError('CONFIG.INVALID_ENVIRONMENT', `${service}: bad environment: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
  }
  return Object.freeze(parsed.data);
}

/** Resolves a directory setting against the working directory. */
export function resolveDir(path: string): string {
  return isAbsolute(path) ? path : resolve(process.cwd(), path);
}

/** The repository's config/ directory, next to the services. */
export const DEFAULT_CONFIG_DIR = fileURLToPath(new URL('../../../config', import.meta.url));

/**
 * Reads and validates a YAML config file (config/critics.yaml, config/refinement-triggers.yaml).
 * A missing file, bad YAML or a schema violation is a ValidationError naming the file and the
 * place in it.
 */
export async function loadYamlConfig<S extends z.ZodType>(path: string, schema: S): Promise<z.infer<S>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ValidationError('CONFIG.UNREADABLE', `cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`, [{ path, message: 'unreadable' }]);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text, { uniqueKeys: true });
  } catch (error) {
    throw new ValidationError('CONFIG.INVALID_YAML', `${path} is not valid YAML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, [{ path, message: 'invalid YAML' }]);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issues = toIssues(parsed.error);
    throw new ValidationError('CONFIG.INVALID', `${path}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
  }
  return parsed.data;
}

/** What every service derives from the common environment. */
export interface CommonSettings {
  readonly bus: { readonly servers: string; readonly namespace: string; readonly connect: { readonly timeoutMs: number }; readonly ackWaitOverrideMs?: number };
  readonly logFormat: (typeof LOG_FORMATS)[number];
  readonly logLevel: LogLevelName;
  readonly ops: OpsSettings;
  /** Absolute path of RLOOP_HOME. */
  readonly home: string;
  /** Absolute path of the config directory. */
  readonly configDir: string;
}

/** Health, metrics and traces of a service. */
export interface OpsSettings {
  /** null: no HTTP endpoint. */
  readonly http: { readonly host: string; readonly port: number } | null;
  /** OTLP/HTTP traces URL; null: tracing off. */
  readonly tracesEndpoint: string | null;
}

function tracesEndpoint(env: CommonEnvironment): string | null {
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT === undefined) return null;
  return `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`;
}

export function commonSettings(env: CommonEnvironment): CommonSettings {
  return {
    bus: {
      servers: env.NATS_URL,
      namespace: env.RLOOP_NAMESPACE,
      connect: { timeoutMs: env.RLOOP_NATS_CONNECT_TIMEOUT_MS },
      ...(env.RLOOP_ACK_WAIT_MS === undefined ? {} : { ackWaitOverrideMs: env.RLOOP_ACK_WAIT_MS }),
    },
    logFormat: env.RLOOP_LOG_FORMAT,
    logLevel: env.RLOOP_LOG_LEVEL,
    ops: { http: env.RLOOP_HTTP_PORT === 0 ? null : { host: env.RLOOP_HTTP_HOST, port: env.RLOOP_HTTP_PORT }, tracesEndpoint: tracesEndpoint(env) },
    home: resolveDir(env.RLOOP_HOME),
    configDir: env.RLOOP_CONFIG_DIR === undefined ? DEFAULT_CONFIG_DIR : resolveDir(env.RLOOP_CONFIG_DIR),
  };
}
