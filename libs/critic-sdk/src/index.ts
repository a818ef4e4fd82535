// Write a critic as its own service: define it like a built-in critic, run it next to the fleet.
// See docs/adding-a-critic.md.
export { defineCritic, DEFAULT_CRITIC_TIMEOUT_MS, type CriticSpec, type ServiceCritic } from './define.js';
export { runCriticService, type RunningCriticService } from './service.js';
export {
  answerRound,
  type DispatchOutcome,
  type RoundHost,
  type RoundPorts,
  type RoundDelivery,
  type CriticFor,
} from './answer-round.js';
export {
  criticServiceOptionsFromEnv,
  resolveCriticServiceOptions,
  criticServiceName,
  type CriticServiceOptions,
  type ResolvedCriticServiceOptions,
  type CheckoutProvider,
} from './options.js';
export { CriticPresence, type CriticPresenceOptions, type AnnouncedCritic } from './presence.js';
export {
  answerEvent,
  criticCacheDir,
  notRun,
  dispatchFor,
  roundExpired,
  reportEventId,
  reportData,
  MAX_REPORTED_FINDINGS,
  type AnswerOptions,
} from './dispatch.js';
export { stopOnSignals } from '@rloop/bus';
export { CRITIC_SDK_ERROR_CODES, CriticDefinitionError, CriticServiceStartError } from './errors.js';
// What a critic's run function works with, from the critics library (built-in critics use the same).
export { draftFinding, type CriticContext, type FindingDraft, type DraftInput } from '@rloop/critics';
