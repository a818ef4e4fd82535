import { isServiceSecretName } from '@rloop/domain';

/** Variables every plan command gets from the service's environment: where programs are, who and where it runs, the locale. */
const BASE_VARIABLES = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TERM',
  'TMPDIR',
] as const;

const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The environment a plan's commands start from (baseline, test_cmd, a `command` implementer):
 * an explicit allowlist — the base variables, the locale (LC_*) and the names the operator lists
 * in config/trust.yaml `commands.env` — never the service's own secrets (the API key, the
 * journal's database, the bus's credentials, rloop's settings), whatever is listed. Pure.
 */
export function commandEnvironment(
  serviceEnv: Readonly<Record<string, string | undefined>>,
  operatorNames: readonly string[],
): Record<string, string> {
  const wanted = new Set<string>([...BASE_VARIABLES, ...operatorNames]);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(serviceEnv)) {
    if (value === undefined || isServiceSecretName(name)) continue;
    if (wanted.has(name) || name.startsWith('LC_')) env[name] = value;
  }
  env['PATH'] ??= DEFAULT_PATH;
  return env;
}
