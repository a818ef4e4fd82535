import type { EventOf } from '@rloop/contracts';
import type { LoopState } from '@rloop/domain';
import { checkoutForWorker } from '@rloop/git';

/**
 * The directory holding a round's commit for the critics this runner hosts: the one place the
 * critic-runner resolves a round's repository (answerRound calls it as the host's `checkout`).
 * Whether the plan gave a URL is read from the run's committed LoopGated, never from the round's
 * message; a URL plan is read from this runner's own cache, a local plan in place.
 */
export async function repositoryFor(
  state: LoopState,
  round: EventOf<'RoundStarted'>['data'],
  workRoot: string,
): Promise<string> {
  return (await checkoutForWorker({ path: round.repo_path, url: state.gated?.repo_url }, round.commit, workRoot)).dir;
}
