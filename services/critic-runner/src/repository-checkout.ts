import { join } from 'node:path';
import type { LoopState } from '@rloop/domain';
import { type ReadOnlyCheckout, readOnlyCheckout, repositoryCacheAt } from '@rloop/git';

/**
 * The read-only checkout critics review for a round. A plan given by URL (the run's committed
 * LoopGated says so, never the round's message) is read from this critic-runner's own cache of the
 * repository under its work root, fetching the pinned commit by sha when missing, so the
 * critic-runner needs no disk shared with the gate. A plan given by local path is read in place
 * (a fleet on one host).
 */
export async function checkoutRound(
  state: LoopState,
  round: { readonly repo_path: string; readonly commit: string },
  workRoot: string,
): Promise<ReadOnlyCheckout> {
  const url = state.gated?.repo_url;
  if (url === undefined) return readOnlyCheckout(round.repo_path, round.commit, { workRoot });
  return repositoryCacheAt(join(workRoot, 'repos')).readOnlyCheckout(url, round.commit, { workRoot });
}
