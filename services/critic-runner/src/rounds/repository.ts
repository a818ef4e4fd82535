import type { EventOf } from '@rloop/contracts';
import type { LoopState } from '@rloop/domain';
import { checkoutRound } from '../repository-checkout.js';

/**
 * The directory holding a round's commit for the critics this runner hosts. The one place the
 * critic-runner resolves a round's repository (answerRound calls it as the host's `checkout`):
 * a plan given by URL is read from this runner's own cache, a local plan in place
 * (see checkoutRound).
 */
export async function repositoryFor(
  state: LoopState,
  round: EventOf<'RoundStarted'>['data'],
  workRoot: string,
): Promise<string> {
  return (await checkoutRound(state, round, workRoot)).dir;
}
