// Child process for the speed bench: runs critics once over a directory the way `rloop review`
// would (module loading included), and prints how long the review itself took.
import { performance } from 'node:perf_hooks';
import { builtInCritics, reviewRepositoryWithRuns } from '@rloop/critics';

const [dir, cacheDir, ...ids] = process.argv.slice(2);
const started = performance.now();
const outcome = await reviewRepositoryWithRuns({
  repoDir: dir,
  now: new Date('2026-11-30T00:00:00Z'),
  critics: builtInCritics({ only: ids }),
  ...(cacheDir === '-' ? {} : { cacheDir }),
});
const failed = outcome.runs.filter((r) => r.status !== 'reported');
if (failed.length > 0) {
  process.stderr.write(`${JSON.stringify(failed)}\n`);
  process.exit(2);
}
process.stdout.write(
  `${JSON.stringify({ review_ms: Math.round(performance.now() - started), findings: outcome.letter.findings.length, runs: outcome.runs.map((r) => ({ id: r.critic_id, ms: r.duration_ms, notes: r.notes })) })}\n`,
);
