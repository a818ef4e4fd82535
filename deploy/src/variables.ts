// What the code reads, for the deployment specs: the fleet's services and the environment
// variables each one declares (its config.ts schema plus the common one every service reads).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The services of the fleet: the directories under services/ with a package.json. */
export const fleet = readdirSync(join(ROOT, 'services')).filter((name) =>
  existsSync(join(ROOT, 'services', name, 'package.json')),
);

/** Variables an environment schema declares: `NAME: z…` lines inside `…Environment = …({ … })`. */
export function declaredVariables(source: string): string[] {
  const names: string[] = [];
  for (const block of source.matchAll(/Environment\s*=\s*[\w.]*\(\{([\s\S]*?)\n\}\)/g)) {
    for (const match of (block[1] ?? '').matchAll(/^\s+([A-Z][A-Z0-9_]*):/gm)) names.push(match[1] ?? '');
  }
  return names;
}

/** The variables every service reads (libs/bus/src/service-config.ts). */
export const common = declaredVariables(readFileSync(join(ROOT, 'libs/bus/src/service-config.ts'), 'utf8'));

/** Every variable a service reads: the common environment and its own config.ts. */
export function variablesRead(service: string): Set<string> {
  const config = readFileSync(join(ROOT, 'services', service, 'src', 'config.ts'), 'utf8');
  return new Set([...common, ...declaredVariables(config)]);
}
