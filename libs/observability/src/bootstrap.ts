import type { DynamicModule } from '@nestjs/common';
import type { CommonSettings } from '@rloop/bus';
import { RloopError, describeError } from '@rloop/contracts';
import { type ObservedService, type ObservedServiceOptions, startObservedService } from './service.js';

/** What a service's config carries that the bootstrap needs (every service's config extends CommonSettings). */
export type BootstrapSettings = Pick<CommonSettings, 'bus' | 'logFormat' | 'logLevel' | 'ops'>;

/** What a service may add to the observed start (its own metrics, observer settings, signal handling, consumer limits). */
export type BootstrapExtras = Partial<
  Omit<ObservedServiceOptions, 'name' | 'module' | 'logFormat' | 'logLevel' | 'ops'>
>;

export interface BootstrapOptions<C extends BootstrapSettings> {
  readonly name: string;
  /** Parses the service's environment (and config files) once; a failure exits 1 with one line. */
  readonly loadConfig: () => C | Promise<C>;
  /** The service's root module, built from its config. */
  readonly module: (config: C) => DynamicModule;
  /** Masks secrets in the start-up error line (the services that hold an API key). */
  readonly redact?: (text: string) => string;
  /** Added to the observed start, from the config. */
  readonly extras?: (config: C) => BootstrapExtras;
}

/** Writes `<name>: failed to start: <code>: <why>` (masked by `redact`) and exits 1. */
export function exitOnStartFailure(
  name: string,
  error: unknown,
  redact: (text: string) => string = (text) => text,
): never {
  process.stderr.write(
    `${name}: failed to start: ${redact(`${error instanceof RloopError ? `${error.code}: ` : ''}${describeError(error)}`)}\n`,
  );
  process.exit(1);
}

/** Loads a service's config, or exits 1 with one line naming what is wrong (exitOnStartFailure). */
export async function loadConfigOrExit<C>(
  name: string,
  loadConfig: () => C | Promise<C>,
  redact?: (text: string) => string,
): Promise<C> {
  try {
    return await loadConfig();
  } catch (error) {
    exitOnStartFailure(name, error, redact);
  }
}

/**
 * Every service's main.ts: config parsed once (a bad variable exits naming it), then the Nest
 * microservice with the bus, the clock and identity, logging, metrics, tracing and the ops
 * endpoint (startObservedService).
 *
 * @example
 * await bootstrapService({ name: 'gate', loadConfig: loadGateConfig, module: (config) => GateModule.forRoot(config) });
 */
export async function bootstrapService<C extends BootstrapSettings>(
  options: BootstrapOptions<C>,
): Promise<{ readonly config: C; readonly service: ObservedService }> {
  const config = await loadConfigOrExit(options.name, options.loadConfig, options.redact);
  const extras = options.extras?.(config) ?? {};
  const service = await startObservedService({
    name: options.name,
    module: options.module(config),
    bus: config.bus,
    logFormat: config.logFormat,
    logLevel: config.logLevel,
    ops: config.ops,
    ...extras,
  });
  return { config, service };
}
