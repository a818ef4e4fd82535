import { join } from 'node:path';
import { CommonEnvironment, type CommonSettings, commonSettings, loadYamlConfig, parseEnvironment } from '@rloop/bus';
import { ValidationError } from '@rloop/contracts';
import { CriticCatalogue } from '@rloop/domain';
import { z } from 'zod';

const ConsoleEnvironment = CommonEnvironment.extend({
  /** The ops token: a request with `Authorization: Bearer <it>` may resume and stop loops. Never logged. */
  RLOOP_CONSOLE_TOKEN: z.string().min(16, 'use at least 16 characters').optional(),
  /**
   * A header a trusted reverse proxy sets to the signed-in person (e.g. `X-Forwarded-User`): a
   * request carrying it may act, recorded as that person. Only set it when nothing but the proxy
   * can reach the console.
   */
  RLOOP_CONSOLE_TRUSTED_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,64}$/, 'a header name')
    .optional(),
});

export interface ConsoleConfig extends CommonSettings {
  readonly http: { readonly host: string; readonly port: number };
  readonly access: { readonly token: string | null; readonly trustedHeader: string | null };
  /** Soft caps per phase from config/critics.yaml, drawn on the convergence chart. */
  readonly softCaps: Readonly<Record<string, number>>;
}

/** Parses the console's environment and config/critics.yaml once, at start. */
export async function loadConsoleConfig(env: NodeJS.ProcessEnv = process.env): Promise<ConsoleConfig> {
  const parsed = parseEnvironment(ConsoleEnvironment, env, 'console');
  const common = commonSettings(parsed, 'console');
  if (common.ops.http === null) {
    throw new ValidationError(
      'CONFIG.INVALID_ENVIRONMENT',
      'console: bad environment: RLOOP_HTTP_PORT: the console serves its pages there; set a port (`rloop up` gives it 9460)',
      [{ path: 'RLOOP_HTTP_PORT', message: 'required by the console' }],
    );
  }
  const catalogue = await loadYamlConfig(join(common.configDir, 'critics.yaml'), CriticCatalogue);
  return Object.freeze({
    ...common,
    http: common.ops.http,
    access: {
      token: parsed.RLOOP_CONSOLE_TOKEN ?? null,
      trustedHeader: parsed.RLOOP_CONSOLE_TRUSTED_HEADER?.toLowerCase() ?? null,
    },
    softCaps: { ...catalogue.soft_caps },
  });
}
