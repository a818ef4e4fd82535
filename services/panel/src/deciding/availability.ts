import type { CriticRegistrySnapshot, RegisteredCritic } from '@rloop/bus';
import type { CriticAvailability, CriticCatalogue, LoopState } from '@rloop/domain';

/**
 * How long to hold back the next decision, or null to decide now (pure). A round whose letter came
 * back empty but incomplete is run again; when critics were missing because their heartbeats
 * stopped (a NATS restart, a busy machine), running it again at once only fails it again, and
 * rounds would race to the soft cap in seconds. So that retry waits, up to `retryWaitMs` after the
 * letter, for them to heartbeat again (checking every heartbeat interval); then it runs without them.
 */
export function retryWaitMs(
  state: Pick<LoopState, 'status' | 'current'>,
  unavailable: readonly string[],
  nowMs: number,
  settings: { readonly retryWaitMs: number; readonly heartbeatIntervalMs: number },
): number | null {
  const letter = state.current?.letter;
  if (
    state.status !== 'reviewing' ||
    letter === null ||
    letter === undefined ||
    letter.findings > 0 ||
    letter.complete ||
    unavailable.length === 0
  )
    return null;
  const leftMs = settings.retryWaitMs - (nowMs - Date.parse(letter.occurred_at));
  return leftMs <= 0 ? null : Math.min(settings.heartbeatIntervalMs, leftMs);
}

/** What decideNext needs from the registry: the catalogue it selects from and who can be dispatched. */
export interface PanelView {
  readonly catalogue: CriticCatalogue;
  readonly availability: (criticId: string) => CriticAvailability;
}

const MIN_TIMEOUT_MS = 1_000;
const MAX_TIMEOUT_MS = 3_600_000;

/** The trigger name under which a critic that registered itself (not named by the catalogue) joins panels. */
export function registeredTriggerName(criticId: string): string {
  return `registered ${criticId}`;
}

/**
 * The catalogue plus every critic that registered itself with triggers and is not in the
 * catalogue: it joins a plan's panel when a file matches its triggers (every plan when it has none),
 * never as core — only the catalogue makes a critic core.
 */
export function effectiveCatalogue(catalogue: CriticCatalogue, registry: CriticRegistrySnapshot): CriticCatalogue {
  const joining = registry.critics.filter((c) => catalogue.critics[c.critic_id] === undefined);
  if (joining.length === 0) return catalogue;
  return {
    ...catalogue,
    critics: {
      ...catalogue.critics,
      ...Object.fromEntries(
        joining.map((c) => [
          c.critic_id,
          {
            evidence: c.evidence,
            description: c.description,
            timeout_ms: Math.min(MAX_TIMEOUT_MS, Math.max(MIN_TIMEOUT_MS, c.timeout_ms)),
            host: 'external' as const,
          },
        ]),
      ),
    },
    dynamic: [
      ...catalogue.dynamic,
      ...joining.map((c) => ({
        name: registeredTriggerName(c.critic_id),
        globs: c.triggers.length > 0 ? [...c.triggers] : ['**'],
        critics: [c.critic_id],
        core: false,
      })),
    ],
  };
}

function whyNotAlive(criticId: string, registered: RegisteredCritic | undefined, host: 'builtin' | 'external'): string {
  if (registered !== undefined) {
    const draining = registered.instances.every((i) => i.status === 'draining');
    return draining
      ? `${criticId} is shutting down (every instance is draining)`
      : `no heartbeat from ${criticId} since ${registered.last_seen} (expected every ${registered.heartbeat_interval_ms} ms)`;
  }
  return host === 'builtin'
    ? `not registered: no critic-runner hosting ${criticId} is alive`
    : `not registered: the ${criticId} critic service is not running (no live heartbeat)`;
}

/**
 * Which critics the panel may dispatch, from the registry snapshot (pure). A critic that needs an
 * API key this panel lacks is "not configured" whatever the registry says; otherwise a critic is
 * available only while one of its instances heartbeats. Unavailable core critics become a
 * CriticFailed of the round (selectPanel/decideNext); unavailable dynamic ones are left out, and
 * the round says why.
 */
export function panelView(
  catalogue: CriticCatalogue,
  anthropicConfigured: boolean,
  registry: CriticRegistrySnapshot,
): PanelView {
  const effective = effectiveCatalogue(catalogue, registry);
  const byId = new Map(registry.critics.map((c) => [c.critic_id, c]));
  return {
    catalogue: effective,
    availability: (criticId) => {
      const entry = effective.critics[criticId];
      if (entry === undefined) return { state: 'not_configured', reason: 'not in the critic catalogue' };
      if (entry.requires === 'anthropic' && !anthropicConfigured)
        return { state: 'not_configured', reason: 'ANTHROPIC_API_KEY is not set' };
      const registered = byId.get(criticId);
      if (registered?.health === 'alive') return { state: 'available' };
      return { state: 'unavailable', reason: whyNotAlive(criticId, registered, entry.host) };
    },
  };
}
