// Packs the `rloop` command as an installable npm package: `node scripts/pack-cli.mjs [--out <dir>]`.
//
// The CLI is a private workspace package whose libraries (@rloop/contracts, critics, llm, …) are
// workspace packages too. The published package `rloop` carries the CLI's compiled code and those
// libraries' compiled code as bundled dependencies, depends on the third-party packages they
// import (at the versions the repository pins), and ships config/ (models and their prices) and
// the .rloop.yaml schema. Run `npm run build` (or `npx tsc -b tsconfig.json`) first.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const outIndex = args.indexOf('--out');
const outDir = resolve(outIndex >= 0 ? (args[outIndex + 1] ?? '.') : join(ROOT, '.rloop', 'pack'));
const stage = join(outDir, 'stage');

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));
const rootPkg = readJson(join(ROOT, 'package.json'));
const cliPkg = readJson(join(ROOT, 'apps', 'cli', 'package.json'));

/** Every file under a directory, relative to it. */
function walk(dir, base = dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path, base) : [relative(base, path)];
  });
}

/** Compiled JavaScript only: no declarations, maps, build info, specs or test helpers. */
function shipped(file) {
  return (
    file.endsWith('.js') &&
    !/\.(spec|test-helpers)\.js$/.test(file) &&
    !file.split('/').includes('e2e') &&
    !file.split('/').includes('__fixtures__')
  );
}

function copyDist(from, to) {
  if (!existsSync(from)) throw new Error(`${relative(ROOT, from)} is missing: build first (npx tsc -b tsconfig.json)`);
  for (const file of walk(from).filter(shipped)) {
    mkdirSync(dirname(join(to, file)), { recursive: true });
    cpSync(join(from, file), join(to, file));
  }
}

/** Bare module specifiers a compiled file imports (static, dynamic and re-exports). */
/**
 * The modules a compiled file imports (static, re-exported and dynamic), read by TypeScript's own
 * scanner: a module named in a comment or a string (the SAST models name pug and puppeteer) is no
 * import.
 */
function importsOf(file) {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return new Set(
    importedFiles.map((f) => f.fileName).filter((spec) => !spec.startsWith('.') && !spec.startsWith('node:')),
  );
}

const packageOf = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);

rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });

// The CLI itself.
copyDist(join(ROOT, 'apps', 'cli', 'dist'), join(stage, 'dist'));
mkdirSync(join(stage, 'bin'), { recursive: true });
cpSync(join(ROOT, 'apps', 'cli', 'bin', 'rloop.js'), join(stage, 'bin', 'rloop.js'));
cpSync(join(ROOT, 'config'), join(stage, 'config'), { recursive: true });
mkdirSync(join(stage, 'schemas'), { recursive: true });
cpSync(join(ROOT, 'schemas', 'rloop-config.schema.json'), join(stage, 'schemas', 'rloop-config.schema.json'));
cpSync(join(ROOT, 'apps', 'cli', 'README.md'), join(stage, 'README.md'));

// The workspace libraries it imports, transitively, each as a bundled dependency.
const thirdParty = new Set();
const workspace = new Set();
const queue = [join(stage, 'dist')];
while (queue.length > 0) {
  const dir = queue.shift();
  for (const file of walk(dir).filter((f) => f.endsWith('.js'))) {
    for (const spec of importsOf(join(dir, file))) {
      const name = packageOf(spec);
      if (builtinModules.includes(name)) continue;
      if (name.startsWith('@rloop/')) {
        if (workspace.has(name)) continue;
        workspace.add(name);
        const lib = name.slice('@rloop/'.length);
        const libDir = join(ROOT, 'libs', lib);
        const libPkg = readJson(join(libDir, 'package.json'));
        const target = join(stage, 'node_modules', '@rloop', lib);
        copyDist(join(libDir, 'dist'), join(target, 'dist'));
        // Data files a library reads at run time (end-of-life tables).
        if (existsSync(join(libDir, 'data'))) cpSync(join(libDir, 'data'), join(target, 'data'), { recursive: true });
        writeFileSync(
          join(target, 'package.json'),
          `${JSON.stringify({ name, version: libPkg.version, private: true, type: 'module', exports: { '.': { default: './dist/index.js' } } }, null, 2)}\n`,
        );
        queue.push(join(target, 'dist'));
      } else {
        thirdParty.add(name);
      }
    }
  }
}

const missing = [...thirdParty].filter((name) => rootPkg.dependencies?.[name] === undefined);
if (missing.length > 0)
  throw new Error(`the CLI imports ${missing.join(', ')}, which package.json does not list as dependencies`);
const dependencies = Object.fromEntries([...thirdParty].sort().map((name) => [name, rootPkg.dependencies[name]]));
const bundled = [...workspace].sort();

writeFileSync(
  join(stage, 'package.json'),
  `${JSON.stringify(
    {
      name: 'rloop',
      version: cliPkg.version,
      description:
        'Refinement Loop review: every check (compiler and linter, taint analysis, secrets, duplicates, dependency CVEs and end-of-life, and an LLM review with a key) on your code, for people and for CI.',
      license: rootPkg.license,
      homepage: 'https://refinement-loop.dev',
      keywords: ['code-review', 'static-analysis', 'sarif', 'ci', 'linter', 'security'],
      type: 'module',
      engines: rootPkg.engines,
      bin: { rloop: './bin/rloop.js' },
      files: ['bin', 'dist', 'config', 'schemas', 'README.md'],
      dependencies: {
        ...dependencies,
        ...Object.fromEntries(
          bundled.map((name) => [name, readJson(join(stage, 'node_modules', name, 'package.json')).version]),
        ),
      },
      bundleDependencies: bundled,
    },
    null,
    2,
  )}\n`,
);

const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', outDir], {
  cwd: stage,
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
const [{ filename, size, entryCount }] = JSON.parse(packed);
process.stdout.write(`${join(outDir, filename)}\n`);
process.stderr.write(
  `pack-cli: ${filename}: ${entryCount} files, ${(size / 1024).toFixed(0)} KiB; bundles ${bundled.join(', ')}; depends on ${Object.keys(dependencies).length} packages\n`,
);
