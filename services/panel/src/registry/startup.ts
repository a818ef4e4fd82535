import type { CriticRegistrySnapshot } from '@rloop/bus';
import type { CriticCatalogue } from '@rloop/domain';

/**
 * The critics a starting panel waits for (pure): every critic the catalogue can put on a panel
 * (core or in a trigger) that this panel can configure, and that has no live instance yet.
 */
export function criticsAwaited(
  catalogue: CriticCatalogue,
  anthropicConfigured: boolean,
  registry: CriticRegistrySnapshot,
): string[] {
  const alive = new Set(registry.critics.filter((c) => c.health === 'alive').map((c) => c.critic_id));
  const dispatchable = new Set([...catalogue.core, ...catalogue.dynamic.flatMap((t) => t.critics)]);
  return [...dispatchable]
    .filter((id) => {
      const entry = catalogue.critics[id];
      return entry !== undefined && !(entry.requires === 'anthropic' && !anthropicConfigured) && !alive.has(id);
    })
    .sort();
}
