import type { DispatchedCritic, LeftOutCritic } from '@rloop/contracts';
import picomatch from 'picomatch';
import type { CriticCatalogue } from '../config/catalogue.js';

/** Whether a critic can be dispatched now, as the panel's host sees it. */
export type CriticAvailability =
  | { readonly state: 'available' }
  /** Not set up here (an LLM critic without an API key): left out, and the panel says so. */
  | { readonly state: 'not_configured'; readonly reason: string }
  /** Set up but not answering (no heartbeat): never dispatched; a missing core critic fails the round. */
  | { readonly state: 'unavailable'; readonly reason: string };

export interface PanelSelection {
  readonly critics: DispatchedCritic[];
  readonly not_configured: LeftOutCritic[];
  /** Core critics that should run but cannot: each becomes a CriticFailed for the round. */
  readonly missing_core: LeftOutCritic[];
}

/**
 * Chooses the round's panel (spec Decision 1): every core critic, plus the dynamic critics whose
 * trigger globs match a file under review, minus the ones that cannot run here. A trigger marked
 * `core` adds its critics as core (a language's own compiler and linter when the plan has files
 * of that language).
 */
export function selectPanel(
  catalogue: CriticCatalogue,
  files: readonly string[],
  availability: (criticId: string) => CriticAvailability,
): PanelSelection {
  const reasons = new Map<string, string>();
  const coreIds = new Set<string>(catalogue.core);
  for (const id of catalogue.core) reasons.set(id, 'core');
  for (const trigger of catalogue.dynamic) {
    const match = picomatch(trigger.globs, { dot: true, nocase: true });
    const hit = files.find((file) => match(file));
    if (hit === undefined) continue;
    for (const id of trigger.critics) {
      if (trigger.core && !coreIds.has(id)) {
        coreIds.add(id);
        reasons.set(id, `core for trigger ${trigger.name}: ${hit}`);
      } else if (!reasons.has(id)) reasons.set(id, `trigger ${trigger.name}: ${hit}`);
    }
  }
  const critics: DispatchedCritic[] = [];
  const notConfigured: LeftOutCritic[] = [];
  const missingCore: LeftOutCritic[] = [];
  for (const [id, reason] of [...reasons.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const entry = catalogue.critics[id];
    if (entry === undefined) continue;
    const core = coreIds.has(id);
    const available = availability(id);
    if (available.state === 'not_configured') {
      notConfigured.push({ critic_id: id, reason: available.reason });
    } else if (available.state === 'unavailable') {
      if (core) missingCore.push({ critic_id: id, reason: available.reason });
      else notConfigured.push({ critic_id: id, reason: available.reason });
    } else {
      critics.push({ critic_id: id, evidence: entry.evidence, core, reason, timeout_ms: entry.timeout_ms });
    }
  }
  return { critics, not_configured: notConfigured, missing_core: missingCore };
}
