#!/usr/bin/env node
// Measures the deterministic critics on a labeled corpus: recall on marked defects and the
// false-positive rate on their fixed twins, per category.
//
//   npx tsc -b libs/critics/tsconfig.lib.json && node bench/critics/score.js [corpusDir] [--json] [--verbose] [--critics <index.js>]
//
// --critics loads another build of @rloop/critics (e.g. a checkout of an older commit's
// libs/critics/dist/index.js), to measure it on this corpus: before/after figures of a change.
// Corpus layout (see bench/critics/README.md): <corpus>/<category>/<case>/{vulnerable,fixed}/…
// Each variant directory is reviewed as its own repository. A defect is marked on its line with a
// comment `VULN: <type>` (e.g. `// VULN: sql-injection`), or listed in <case>/case.json as
// { "markers": [{ "variant": "vulnerable", "file": ".env", "line": 2, "type": "secret" }] }.
// case.json (in the case or in a variant) may also give { "files": ["src/new/**"] }: the files
// under review (default: all), for "change against the rest of the repository" cases.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const criticsAt = args.indexOf('--critics');
const criticsModule = criticsAt < 0 ? null : args[criticsAt + 1];
const positional = args.filter((a, i) => !a.startsWith('--') && !(criticsAt >= 0 && i === criticsAt + 1));
const corpus = resolve(positional[0] ?? join(here, 'corpus'));
const { builtInCritics, runCritic } = await import(
  criticsModule === null ? '@rloop/critics' : pathToFileURL(resolve(criticsModule)).href
);
const asJson = args.includes('--json');
const verbose = args.includes('--verbose');
const NOW = new Date('2026-11-30T00:00:00Z');

/** Marker type → the critic that must find it and the finding-type family it belongs to. */
const SAST = ['sql-injection', 'command-injection', 'code-injection', 'path-traversal', 'open-redirect', 'xss', 'ssrf'];
function routeOf(type) {
  const t = type.toLowerCase();
  if (SAST.some((s) => t === s || t === `sast/${s}`)) return { critic: 'security/sast-scanner', family: 'sast/' };
  if (t.startsWith('secret')) return { critic: 'security/secrets-detector', family: 'secret/' };
  if (t.startsWith('duplicate')) return { critic: 'quality/duplicate-code-detector', family: 'duplicate/' };
  if (t.startsWith('deprecation')) return { critic: 'toolchain/compiler-linter', family: 'deprecation/' };
  if (['mass-assignment', 'nosql-injection', 'unvalidated-input'].some((s) => t === s || t === `validation/${s}`)) {
    return { critic: 'security/input-validation-checker', family: 'validation/' };
  }
  if (t.startsWith('db/')) return { critic: 'specialized/database-reviewer', family: 'db/' };
  if (t.startsWith('eol')) return { critic: 'toolchain/dependency-eol', family: 'eol/' };
  return null;
}
const CATEGORY_DEFAULT = {
  secrets: 'secret',
  duplicates: 'duplicate',
  deprecations: 'deprecation',
  'input-validation': 'unvalidated-input',
  migrations: 'db/drop-table',
};

/** Does a finding of type `findingType` satisfy a marker of type `marker`? */
function typeMatches(findingType, marker) {
  const m = marker.toLowerCase();
  const f = findingType.toLowerCase();
  return f === m || f.endsWith(`/${m}`) || f.startsWith(`${m}/`) || f.startsWith(`${m}-`);
}

function walk(dir, root = dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'case.json') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, root, out);
    else out.push(relative(root, path).split(sep).join('/'));
  }
  return out;
}

function readJson(path) {
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
}

function markersIn(variantDir, files) {
  const markers = [];
  for (const file of files) {
    const text = readFileSync(join(variantDir, file), 'utf8');
    text.split('\n').forEach((line, index) => {
      const match = /VULN:\s*([A-Za-z0-9/_.-]+)/.exec(line);
      if (match !== null) markers.push({ file, line: index + 1, type: match[1] });
    });
  }
  return markers;
}

const critics = new Map(builtInCritics({ now: NOW, useRepoEslintConfig: false }).map((c) => [c.id, c]));
const findingsCache = new Map();
async function findingsOf(criticId, variantDir, files) {
  const key = `${criticId}|${variantDir}`;
  if (findingsCache.has(key)) return findingsCache.get(key);
  const critic = critics.get(criticId);
  const run = await runCritic(critic, {
    repoDir: variantDir,
    commit: '0'.repeat(40),
    files,
    phase: 'final_sweep',
    now: NOW,
  });
  if (run.status !== 'reported')
    throw new Error(`${criticId} did not report on ${variantDir}: ${run.reason} ${run.message}`);
  findingsCache.set(key, run.findings);
  return run.findings;
}

function covers(finding, marker) {
  const inRange = (file, range) => file === marker.file && range.start <= marker.line && marker.line <= range.end;
  return (
    inRange(finding.file, finding.line_range) || finding.related_locations.some((l) => inRange(l.file, l.line_range))
  );
}

const rows = new Map();
const details = [];
for (const category of readdirSync(corpus).sort()) {
  const categoryDir = join(corpus, category);
  if (!statSync(categoryDir).isDirectory()) continue;
  for (const caseName of readdirSync(categoryDir).sort()) {
    const caseDir = join(categoryDir, caseName);
    if (!statSync(caseDir).isDirectory()) continue;
    const caseConfig = readJson(join(caseDir, 'case.json'));
    const variants = ['vulnerable', 'fixed'].filter((v) => existsSync(join(caseDir, v)));
    let family = null;
    let criticId = null;
    const row = rows.get(category) ?? {
      category,
      cases: 0,
      markers: 0,
      found: 0,
      unexpected: 0,
      fixed: 0,
      fpTwins: 0,
      fpFindings: 0,
    };
    rows.set(category, row);
    row.cases += 1;
    for (const variant of variants) {
      const variantDir = join(caseDir, variant);
      const variantConfig = readJson(join(variantDir, 'case.json'));
      const all = walk(variantDir);
      const globs = variantConfig.files ?? caseConfig.files;
      const files = globs === undefined ? all : all.filter((f) => globs.some((g) => matchGlob(g, f)));
      const markers = [
        ...markersIn(variantDir, all),
        ...(caseConfig.markers ?? []).filter((m) => m.variant === variant),
      ];
      const route = routeOf(markers[0]?.type ?? CATEGORY_DEFAULT[category] ?? category);
      if (route === null) throw new Error(`${caseDir}: no critic for marker type ${markers[0]?.type ?? category}`);
      family = family ?? route.family;
      criticId = criticId ?? route.critic;
      const findings = (await findingsOf(criticId, variantDir, files)).filter((f) => f.finding_type.startsWith(family));
      if (variant === 'vulnerable') {
        const matched = new Set();
        for (const marker of markers) {
          row.markers += 1;
          const hit = findings.find((f) => typeMatches(f.finding_type, marker.type) && covers(f, marker));
          if (hit !== undefined) {
            row.found += 1;
            matched.add(hit.id);
          } else {
            details.push(`MISSED ${category}/${caseName}: ${marker.type} at ${marker.file}:${marker.line}`);
          }
        }
        const extra = findings.filter((f) => !matched.has(f.id) && !markers.some((m) => covers(f, m)));
        row.unexpected += extra.length;
        for (const f of extra)
          details.push(
            `EXTRA  ${category}/${caseName}: ${f.finding_type} at ${f.file}:${f.line_range.start} — ${f.title}`,
          );
      } else {
        row.fixed += 1;
        if (findings.length > 0) {
          row.fpTwins += 1;
          row.fpFindings += findings.length;
          for (const f of findings)
            details.push(
              `FP     ${category}/${caseName}: ${f.finding_type} at ${f.file}:${f.line_range.start} — ${f.title}`,
            );
        }
      }
    }
  }
}

function matchGlob(glob, file) {
  const pattern = glob
    .split('**')
    .map((part) =>
      part
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*'),
    )
    .join('.*');
  return new RegExp(`^${pattern}$`).test(file);
}

const pct = (n, d) => (d === 0 ? '—' : `${((100 * n) / d).toFixed(1)}%`);
const list = [...rows.values()];
const total = (filter, name) => {
  const picked = list.filter(filter);
  return picked.reduce(
    (acc, r) => ({
      ...acc,
      cases: acc.cases + r.cases,
      markers: acc.markers + r.markers,
      found: acc.found + r.found,
      unexpected: acc.unexpected + r.unexpected,
      fixed: acc.fixed + r.fixed,
      fpTwins: acc.fpTwins + r.fpTwins,
      fpFindings: acc.fpFindings + r.fpFindings,
    }),
    { category: name, cases: 0, markers: 0, found: 0, unexpected: 0, fixed: 0, fpTwins: 0, fpFindings: 0 },
  );
};
const security = total((r) => SAST.includes(r.category), 'SECURITY (sast, all sinks)');
const overall = total(() => true, 'ALL');

if (asJson) {
  process.stdout.write(`${JSON.stringify({ corpus, categories: list, security, overall, details }, null, 2)}\n`);
} else {
  const header = ['category', 'cases', 'markers', 'found', 'recall', 'extra', 'fixed twins', 'FP twins', 'FP rate'];
  const line = (r) => [
    r.category,
    r.cases,
    r.markers,
    r.found,
    pct(r.found, r.markers),
    r.unexpected,
    r.fixed,
    r.fpTwins,
    pct(r.fpTwins, r.fixed),
  ];
  const table = [header, ...list.map(line), line(security), line(overall)].map((cells) => cells.map(String));
  const widths = header.map((_, i) => Math.max(...table.map((r) => r[i].length)));
  for (const [index, cells] of table.entries()) {
    if (index === table.length - 2) process.stdout.write(`${widths.map((w) => '-'.repeat(w)).join('-+-')}\n`);
    process.stdout.write(`${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')}\n`);
    if (index === 0) process.stdout.write(`${widths.map((w) => '-'.repeat(w)).join('-+-')}\n`);
  }
  if (verbose || details.length > 0) process.stdout.write(`\n${details.join('\n')}\n`);
  process.stdout.write(
    `\ntargets: security recall >= 85% (now ${pct(security.found, security.markers)}), FP on fixed twins <= 5% (now ${pct(overall.fpTwins, overall.fixed)})\n`,
  );
}
