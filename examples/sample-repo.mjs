// Creates the sample repositories the examples, the demo and the implementer's tests run against:
// a real git repository built from the sources under fixtures/sample-repo/ (kept without .git).
//
//   node examples/sample-repo.mjs <fixable|unfixable> [target-dir]
//
// The default target is <repo>/.rloop/samples/<variant>, which is where examples/plans/*.yaml point.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

/** The two variants: `fixable` has only ESLint-autofixable problems; `unfixable` adds a type error and a deprecated call. */
export const SAMPLE_VARIANTS = ['fixable', 'unfixable'];

const here = dirname(fileURLToPath(import.meta.url));
const sources = join(here, 'fixtures', 'sample-repo');

/** Where `node examples/sample-repo.mjs <variant>` puts a variant (the path the example plans use). */
export function defaultSampleRepoDir(variant) {
  return join(here, '..', '.rloop', 'samples', variant);
}

// Fixed identity and dates make the sample's commit id the same on every machine and every run.
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Sample Author',
  GIT_AUTHOR_EMAIL: 'sample@example.com',
  GIT_COMMITTER_NAME: 'Sample Author',
  GIT_COMMITTER_EMAIL: 'sample@example.com',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
};

function gitIn(dir, args) {
  const env = { ...process.env, ...GIT_ENV, LC_ALL: 'C' };
  // Variables that would point git at another repository (set when this runs inside a git hook).
  for (const key of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_COMMON_DIR'])
    delete env[key];
  return execFileSync('git', ['-C', dir, '-c', 'commit.gpgsign=false', '-c', 'core.hooksPath=/dev/null', ...args], {
    env,
    encoding: 'utf8',
  }).trim();
}

/**
 * Copies the variant's sources to `targetDir`, makes it a git repository on branch `main` with one
 * commit, and returns `{ dir, commit, branch, variant }`. A non-empty `targetDir` is refused unless
 * `options.force` is set, in which case it is replaced.
 *
 * @param {string} targetDir
 * @param {'fixable' | 'unfixable'} variant
 * @param {{ force?: boolean }} [options]
 */
export async function createSampleRepo(targetDir, variant, options = {}) {
  if (!SAMPLE_VARIANTS.includes(variant))
    throw new Error(`unknown sample variant ${JSON.stringify(variant)}; expected one of ${SAMPLE_VARIANTS.join(', ')}`);
  const dir = resolve(targetDir);
  if (existsSync(dir) && (await readdir(dir)).length > 0) {
    if (options.force !== true) throw new Error(`${dir} is not empty; pass { force: true } to replace it`);
    await rm(dir, { recursive: true, force: true });
  }
  await mkdir(dir, { recursive: true });
  await cp(join(sources, 'common'), dir, { recursive: true });
  if (variant === 'unfixable') await cp(join(sources, 'unfixable'), dir, { recursive: true, force: true });
  gitIn(dir, ['init', '-q', '-b', 'main']);
  gitIn(dir, ['add', '-A']);
  gitIn(dir, ['commit', '-q', '--no-verify', '-m', `Sample invoices (${variant})`]);
  return { dir, commit: gitIn(dir, ['rev-parse', 'HEAD']), branch: 'main', variant };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [variant, target] = process.argv.slice(2);
  if (variant === undefined || !SAMPLE_VARIANTS.includes(variant)) {
    process.stderr.write(`usage: node examples/sample-repo.mjs <${SAMPLE_VARIANTS.join('|')}> [target-dir]\n`);
    process.exit(2);
  }
  const repo = await createSampleRepo(target ?? defaultSampleRepoDir(variant), variant, { force: true });
  process.stdout.write(`${JSON.stringify(repo)}\n`);
}
