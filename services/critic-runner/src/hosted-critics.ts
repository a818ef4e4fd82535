import { type CriticDefinition, builtInCritics } from '@rloop/critics';
import type { CriticRunnerConfig } from './config.js';

/**
 * The critics this runner hosts: every deterministic built-in critic the catalogue names, with the
 * catalogue's timeouts.
 */
export function hostedCritics(config: CriticRunnerConfig): CriticDefinition[] {
  const wanted = new Set(Object.entries(config.catalogue.critics).filter(([, entry]) => entry.host === 'builtin').map(([id]) => id));
  return builtInCritics().filter((critic) => wanted.has(critic.id));
}
