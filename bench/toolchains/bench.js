#!/usr/bin/env node
// The language toolchain critics and the offline dependency audit, as ratios against the raw tools
// run directly in the same script on the same generated trees (so the machine's speed cancels out):
//
//   npx tsc -b libs/critics/tsconfig.lib.json && node bench/toolchains/bench.js [--runs 3] [--records 100000]
//
// 1. toolchain/python vs `pyright` + the ruff CLI's work (pyright CLI alone: ruff runs in process);
//    toolchain/go vs `go vet ./...` (+ staticcheck when installed); toolchain/shell vs `shellcheck`;
//    toolchain/rust vs `cargo clippy` on the same crate (warm target directories on both sides).
//    Each critic runs as `rloop review` would, in a fresh process (module loading included).
//    A tool that is not installed here is skipped and said so.
// 2. quality/complexity vs ESLint's complexity rule on a generated 20,000-line TypeScript tree.
// 3. dependency audit from an OSV export: a synthetic npm all.zip of --records records (ZIP64 past
//    65,535), cold load + match of a 1,500-package lockfile, against unzip + JSON.parse of every
//    record (the least any reader of the export must do).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const arg = (name, fallback) => {
  const index = process.argv.indexOf(name);
  return index < 0 ? fallback : Number(process.argv[index + 1]);
};
const RUNS = arg('--runs', 3);
const RECORDS = arg('--records', 100_000);
const work = mkdtempSync(join(tmpdir(), 'rloop-toolchains-bench-'));

function run(command, args, options = {}) {
  const started = performance.now();
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024, ...options });
  if (result.error) throw result.error;
  return { ms: performance.now() - started, result };
}

/** Median of RUNS runs after one warm-up (OS caches, build caches). */
function median(fn) {
  fn();
  const times = [];
  for (let i = 0; i < RUNS; i += 1) times.push(fn());
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

function has(command, args = ['--version']) {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** One critic as `rloop review` runs it, in a fresh process: its wall time, and the review inside it (module loading excluded). */
const critic = (tree, id, cacheDir) => {
  const measure = () => {
    const { ms, result } = run(process.execPath, [
      join(root, 'bench', 'critics-speed', 'run-critic.js'),
      tree,
      cacheDir ?? '-',
      id,
    ]);
    if (result.status !== 0) throw new Error(`${id} failed: ${result.stderr}`);
    return { wall: ms, review: JSON.parse(result.stdout).review_ms };
  };
  return measure;
};
const tool = (command, args, cwd) => () => run(command, args, { cwd }).ms;

function write(dir, files) {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

const rows = [];
const compare = (label, ours, theirs, theirName) => {
  const samples = [];
  median(() => {
    const sample = ours();
    samples.push(sample);
    return sample.wall;
  });
  samples.shift();
  const pick = (key) => samples.map((s) => s[key]).sort((a, b) => a - b)[Math.floor(samples.length / 2)];
  rows.push({ label, review: pick('review'), wall: pick('wall'), theirs: median(theirs), theirName });
};

// ── Python ───────────────────────────────────────────────────────────────────────────────
const python = write(join(work, 'python'), {
  'pyproject.toml': '[project]\nname = "bench"\nversion = "0.1.0"\n',
  ...Object.fromEntries(
    Array.from({ length: 60 }, (_, i) => [
      `app/module_${i}.py`,
      `import os\nfrom typing import Optional\n\n\ndef handler_${i}(items: list[int], scale: Optional[int] = None) -> int:\n    total = 0\n    for item in items:\n        if scale is not None:\n            total += item * scale\n        else:\n            total += item\n    return total\n\n\nclass Service${i}:\n    def __init__(self, name: str) -> None:\n        self.name = name\n\n    def greet(self) -> str:\n        return "hello " + self.name\n\n\nlabel_${i}: str = handler_${i}([1, 2, 3])\n`,
    ]),
  ),
});
compare(
  'python',
  critic(python, 'toolchain/python'),
  tool(process.execPath, [join(root, 'node_modules', 'pyright', 'index.js'), '--outputjson', '.'], python),
  'pyright CLI',
);

// ── Go ───────────────────────────────────────────────────────────────────────────────────
if (has('go', ['version'])) {
  const go = write(join(work, 'go'), {
    'go.mod': 'module example.org/bench\n\ngo 1.19\n',
    ...Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [
        `pkg${i}/p.go`,
        `package pkg${i}\n\nimport "fmt"\n\n// Describe formats a value.\nfunc Describe(n int) string {\n\tif n > 10 {\n\t\treturn fmt.Sprintf("big %d", n)\n\t}\n\treturn fmt.Sprintf("%d items", "n")\n}\n`,
      ]),
    ),
  });
  const env = {
    ...process.env,
    CGO_ENABLED: '0',
    GOFLAGS: '-mod=readonly',
    GOPROXY: 'off',
    GOCACHE: join(work, 'go-cache'),
    XDG_CACHE_HOME: join(work, 'go-cache'),
  };
  const staticcheck = has('staticcheck', ['-version'])
    ? 'staticcheck'
    : has('go-staticcheck', ['-version'])
      ? 'go-staticcheck'
      : null;
  const raw = () =>
    run('go', ['vet', '-json', './...'], { cwd: go, env }).ms +
    (staticcheck === null ? 0 : run(staticcheck, ['-f', 'json', './...'], { cwd: go, env }).ms);
  compare(
    'go',
    critic(go, 'toolchain/go', join(work, 'go-critic-cache')),
    raw,
    staticcheck === null ? 'go vet ./...' : 'go vet + staticcheck',
  );
} else process.stdout.write('go: not installed here, skipped\n');

// ── Shell ────────────────────────────────────────────────────────────────────────────────
if (has('shellcheck')) {
  const scripts = Object.fromEntries(
    Array.from({ length: 80 }, (_, i) => [
      `scripts/task_${i}.sh`,
      `#!/bin/bash\nset -e\ncd /srv/app\nfor f in $FILES; do\n  cp $f /tmp/out_${i}/\ndone\necho "done ${i}"\n`,
    ]),
  );
  const shell = write(join(work, 'shell'), scripts);
  compare(
    'shell',
    critic(shell, 'toolchain/shell'),
    tool('shellcheck', ['-f', 'json1', ...Object.keys(scripts)], shell),
    'shellcheck',
  );
} else process.stdout.write('shell: shellcheck not installed here, skipped\n');

// ── Rust ─────────────────────────────────────────────────────────────────────────────────
if (has('cargo', ['clippy', '--version'])) {
  const rust = write(join(work, 'rust'), {
    'Cargo.toml': '[package]\nname = "bench"\nversion = "0.1.0"\nedition = "2021"\n',
    'src/main.rs': `${Array.from({ length: 20 }, (_, i) => `mod m${i};`).join('\n')}\nfn main() {\n${Array.from({ length: 20 }, (_, i) => `    println!("{}", m${i}::value());`).join('\n')}\n}\n`,
    ...Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [
        `src/m${i}.rs`,
        `pub fn value() -> i32 {\n    let x = ${i};\n    return x * 2;\n}\n`,
      ]),
    ),
  });
  compare(
    'rust',
    critic(rust, 'toolchain/rust', join(work, 'rust-critic-cache')),
    tool('cargo', ['clippy', '--message-format=json', '--all-targets', '--offline', '--quiet'], rust),
    'cargo clippy',
  );
} else process.stdout.write('rust: cargo clippy not installed here, skipped\n');

// ── Complexity ───────────────────────────────────────────────────────────────────────────
const { generateTree } = await import(join(root, 'bench', 'critics-speed', 'generate.js'));
const tsTree = join(work, 'ts');
generateTree(tsTree, { lines: 20_000 });
const eslintConfig = join(work, 'eslint.config.mjs');
writeFileSync(
  eslintConfig,
  `import tseslint from ${JSON.stringify(join(root, 'node_modules', 'typescript-eslint', 'dist', 'index.js'))};\n` +
    `export default [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, rules: { complexity: ['error', 10] } }];\n`,
);
compare(
  'complexity',
  critic(tsTree, 'quality/complexity'),
  () =>
    run(join(root, 'node_modules', '.bin', 'eslint'), ['--config', eslintConfig, '--no-warn-ignored', tsTree], {
      cwd: tsTree,
    }).ms,
  'ESLint complexity rule',
);

process.stdout.write(
  'critic: review in process (as in the critic-runner) / whole process (as `rloop review`) vs the raw tool\n',
);
for (const row of rows) {
  process.stdout.write(
    `${row.label.padEnd(11)} ours ${(row.review / 1000).toFixed(2)} s / ${(row.wall / 1000).toFixed(2)} s   ${row.theirName} ${(row.theirs / 1000).toFixed(2)} s   ratio ${(row.review / row.theirs).toFixed(2)}x / ${(row.wall / row.theirs).toFixed(2)}x\n`,
  );
}

// ── OSV export ───────────────────────────────────────────────────────────────────────────
const { writeZip } = await import(join(root, 'libs', 'testing', 'dist', 'index.js'));
const { AdvisoryDatabase, dependencyAuditCritic, runCritic } = await import(
  join(root, 'libs', 'critics', 'dist', 'index.js')
);
const exportDir = join(work, 'osv', 'npm');
mkdirSync(exportDir, { recursive: true });
const names = Array.from({ length: 5_000 }, (_, i) => `pkg-${i}`);
const records = Array.from({ length: RECORDS }, (_, i) => {
  const malicious = i % 4 !== 0;
  const name = malicious ? `typo-squat-${i}` : (names[i % names.length] ?? 'x');
  return {
    name: `${malicious ? 'MAL' : 'GHSA'}-${i}.json`,
    data: JSON.stringify({
      schema_version: '1.6.0',
      id: `${malicious ? 'MAL-2026' : 'GHSA-bench'}-${i}`,
      modified: '2026-11-20T00:00:00Z',
      summary: malicious ? `Malicious code in ${name} (npm)` : `Prototype pollution in ${name}`,
      details: 'x'.repeat(400),
      affected: [
        malicious
          ? { package: { ecosystem: 'npm', name }, versions: ['1.0.0'] }
          : {
              package: { ecosystem: 'npm', name },
              ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.2.0' }] }],
            },
      ],
      database_specific: { severity: 'HIGH' },
    }),
  };
});
writeZip(join(exportDir, 'all.zip'), records);
const lockPackages = Object.fromEntries(
  names.slice(0, 1_500).map((name, i) => [`node_modules/${name}`, { version: i % 2 === 0 ? '1.1.0' : '1.3.0' }]),
);
const repo = write(join(work, 'audited'), {
  'package.json': `${JSON.stringify({ name: 'audited', dependencies: Object.fromEntries(names.slice(0, 1_500).map((n) => [n, '*'])) }, null, 2)}\n`,
  'package-lock.json': JSON.stringify({
    lockfileVersion: 3,
    packages: { '': { dependencies: Object.fromEntries(names.slice(0, 1_500).map((n) => [n, '*'])) }, ...lockPackages },
  }),
});
const coldStarted = performance.now();
const database = AdvisoryDatabase.load(join(work, 'osv'));
const coldMs = performance.now() - coldStarted;
const audit = async () => {
  const started = performance.now();
  const result = await runCritic(dependencyAuditCritic({ advisories: join(work, 'osv') }), {
    repoDir: repo,
    commit: '0'.repeat(40),
    files: ['package-lock.json'],
    phase: 'final_sweep',
    now: new Date('2026-11-30T00:00:00Z'),
  });
  if (result.status !== 'reported') throw new Error(JSON.stringify(result));
  return { ms: performance.now() - started, findings: result.findings.length };
};
const warm = await audit();
const rawStarted = performance.now();
const unzip = run('unzip', ['-p', join(exportDir, 'all.zip')]);
let parsed = 0;
for (const record of records) {
  JSON.parse(record.data);
  parsed += 1;
}
const rawMs = performance.now() - rawStarted;
process.stdout.write(
  `\nOSV export: ${RECORDS} npm records (ZIP64), ${database.summary.records.npm} indexed\n` +
    `  cold load ${(coldMs / 1000).toFixed(2)} s (${Math.round(RECORDS / (coldMs / 1000))} records/s); unzip -p + JSON.parse of every record ${(rawMs / 1000).toFixed(2)} s${unzip.result.status === 0 ? '' : ' (unzip failed)'}; ratio ${(coldMs / rawMs).toFixed(2)}x\n` +
    `  audit of a 1,500-package lockfile against the loaded export: ${warm.ms.toFixed(0)} ms, ${warm.findings} findings (${parsed} records parsed by the baseline)\n`,
);
rmSync(work, { recursive: true, force: true });
