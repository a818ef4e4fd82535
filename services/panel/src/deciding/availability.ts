import type { CriticAvailability, CriticCatalogue } from '@rloop/domain';

/**
 * Which critics this fleet can run: a critic that needs an LLM is "not configured" without an API
 * key (left out of the panel, and the panel says so — never a silent pass).
 */
export function availabilityFor(catalogue: CriticCatalogue, anthropicConfigured: boolean): (criticId: string) => CriticAvailability {
  return (criticId) => {
    const entry = catalogue.critics[criticId];
    if (entry === undefined) return { state: 'not_configured', reason: 'not in the critic catalogue' };
    if (entry.requires === 'anthropic' && !anthropicConfigured) return { state: 'not_configured', reason: 'ANTHROPIC_API_KEY is not set' };
    return { state: 'available' };
  };
}
