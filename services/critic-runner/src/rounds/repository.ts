import type { EventOf } from '@rloop/contracts';
import { readOnlyCheckout } from '@rloop/git';

/**
 * The directory holding a round's commit for the critics this runner hosts: a read-only checkout
 * of the pinned commit from the run's repository, cached per commit under the work root. The one
 * place the critic-runner resolves a round's repository (answerRound calls it as the host's
 * `checkout`); a worker without the fleet's disk fetches the commit here first.
 */
export async function repositoryFor(round: EventOf<'RoundStarted'>['data'], workRoot: string): Promise<string> {
  return (await readOnlyCheckout(round.repo_path, round.commit, { workRoot })).dir;
}
