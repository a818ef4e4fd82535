#!/usr/bin/env node
// How fast `rloop --help` and `rloop --version` answer, as ratios against a bare `node` start in
// the same script (the machine's speed cancels out), and against loading every command the way the
// CLI did before commands were loaded lazily (all command modules imported at start):
//
//   npx tsc -b tsconfig.json && node bench/cli-startup/bench.js [--runs 15]
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const runsAt = process.argv.indexOf('--runs');
const RUNS = runsAt < 0 ? 15 : Number(process.argv[runsAt + 1]);
const bin = join(root, 'apps', 'cli', 'bin', 'rloop.js');
const commands = join(root, 'apps', 'cli', 'dist', 'commands');
const eager = [
  'fleet',
  'submit',
  'read',
  'critics',
  'loop-control',
  'report',
  'console',
  'calibrate',
  'review',
  'report-pr',
]
  .map((m) => `await import(${JSON.stringify(join(commands, `${m}.js`))});`)
  .join('');

const cases = [
  ['node (baseline)', ['-e', '0']],
  ['rloop --version', [bin, '--version']],
  ['rloop --help', [bin, '--help']],
  ['rloop review --help', [bin, 'review', '--help']],
  ['every command loaded (before)', ['--input-type=module', '-e', eager]],
];

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const results = new Map();
for (let run = 0; run < RUNS; run += 1) {
  // Interleaved, so a burst of load on the machine hits every case alike.
  for (const [name, args] of cases) {
    const started = performance.now();
    const child = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
    const elapsed = performance.now() - started;
    if (child.status !== 0) throw new Error(`${name} exited ${child.status}: ${child.stderr}`);
    results.set(name, [...(results.get(name) ?? []), elapsed]);
  }
}
const baseline = median(results.get('node (baseline)'));
process.stdout.write(`median of ${RUNS} runs each\n`);
for (const [name] of cases) {
  const ms = median(results.get(name));
  process.stdout.write(
    `${name.padEnd(32)} ${ms.toFixed(0).padStart(6)} ms   ${(ms / baseline).toFixed(1).padStart(5)}x node\n`,
  );
}
