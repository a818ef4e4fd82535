import { execFile } from 'node:child_process';
import { posix } from 'node:path';
import { z } from 'zod';
import { describeError } from '@rloop/contracts';
import type { CriticContext, CriticDefinition, FindingDraft } from '../critic.js';
import { CriticNotRunnableError } from '../errors.js';
import { defineCritic, draftFinding, findingTypeToken } from '../plumbing/define.js';
import { exportAge, osvAuditFindings } from '../advisories/audit.js';
import { AdvisoriesUnavailableError, AdvisoryDatabase } from '../advisories/database.js';
import { LockfileFormatError, type LockfileReading, lockfileEcosystem, readLockfile } from '../advisories/lockfiles.js';

const Advisory = z.looseObject({
  source: z.union([z.number(), z.string()]).optional(),
  name: z.string(),
  title: z.string().default('security advisory'),
  url: z.string().default(''),
  severity: z.string().default('unknown'),
  range: z.string().default(''),
  cwe: z.array(z.string()).default([]),
});

const Vulnerability = z.looseObject({
  name: z.string(),
  severity: z.string().default('unknown'),
  isDirect: z.boolean().default(false),
  via: z.array(z.union([z.string(), Advisory])).default([]),
  effects: z.array(z.string()).default([]),
  range: z.string().default(''),
  fixAvailable: z
    .union([
      z.boolean(),
      z.looseObject({ name: z.string(), version: z.string(), isSemVerMajor: z.boolean().default(false) }),
    ])
    .default(false),
});

/** `npm audit --json` (report version 2). */
export const AuditReport = z.looseObject({
  auditReportVersion: z.number().optional(),
  vulnerabilities: z.record(z.string(), Vulnerability),
});
export type AuditReport = z.infer<typeof AuditReport>;

const SCORE: Readonly<Record<string, number>> = { critical: 10, high: 9, moderate: 8, low: 7, info: 7 };

function lineOf(text: string | null, needle: string): number | null {
  if (text === null) return null;
  const index = text.indexOf(needle);
  return index < 0 ? null : text.slice(0, index).split('\n').length;
}

/**
 * Turns an npm audit report into findings: one per (vulnerable package, advisory), placed on the
 * package.json line of the direct dependency that brings it in (or on the lockfile entry when no
 * direct dependency can be named). Every advisory is critical whatever its own severity (Decision 8);
 * the advisory's severity sets the score. Pure: the caller passes the files' text.
 */
export function auditFindings(
  report: AuditReport,
  manifestText: string | null,
  lockText: string | null,
): FindingDraft[] {
  const vulns = report.vulnerabilities;
  const directRoots = (name: string): string[] => {
    const roots = new Set<string>();
    const seen = new Set<string>();
    const queue = [name];
    while (queue.length > 0) {
      const current = queue.shift() ?? '';
      if (seen.has(current)) continue;
      seen.add(current);
      const vuln = vulns[current];
      if (vuln === undefined) continue;
      if (vuln.isDirect) roots.add(current);
      queue.push(...vuln.effects);
    }
    return [...roots].sort();
  };
  const drafts: FindingDraft[] = [];
  for (const [name, vuln] of Object.entries(vulns).sort(([a], [b]) => a.localeCompare(b))) {
    const advisories = vuln.via.filter((v): v is z.infer<typeof Advisory> => typeof v !== 'string');
    if (advisories.length === 0) continue;
    const roots = directRoots(name);
    const root = roots[0];
    const manifestLine = root === undefined ? null : lineOf(manifestText, `"${root}"`);
    const lockLine = lineOf(lockText, `"node_modules/${name}"`);
    const file = manifestLine !== null ? 'package.json' : lockLine !== null ? 'package-lock.json' : 'package.json';
    const line = manifestLine ?? lockLine ?? 1;
    const fix = vuln.fixAvailable;
    const fixText =
      fix === false
        ? 'No fixed version is published yet: replace the package or mitigate and track the advisory.'
        : fix === true
          ? '`npm audit fix` upgrades to a fixed version within the declared ranges.'
          : `\`npm audit fix${fix.isSemVerMajor ? ' --force' : ''}\` moves ${fix.name} to ${fix.version}${fix.isSemVerMajor ? ' (a major upgrade: check its changelog)' : ''}.`;
    for (const advisory of advisories) {
      const ghsa = /GHSA-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}/i.exec(advisory.url)?.[0];
      const id = ghsa ?? `npm-${String(advisory.source ?? name)}`;
      const chain = root !== undefined && root !== name ? ` (pulled in by ${roots.join(', ')})` : '';
      drafts.push(
        draftFinding({
          severity: 'critical',
          score: SCORE[advisory.severity] ?? 8,
          category: 'security',
          finding_type: `cve/${findingTypeToken(id)}`,
          tool_severity: advisory.severity,
          file,
          line_range: { start: line, end: line },
          title: `${name} ${advisory.range || vuln.range}: ${advisory.title} (${id}, ${advisory.severity})`,
          current_behaviour: `The installed ${name}${chain} is in the vulnerable range ${advisory.range || vuln.range} of ${id} (${advisory.severity}${advisory.cwe.length > 0 ? `, ${advisory.cwe.join(', ')}` : ''}): ${advisory.title}. ${advisory.url}`,
          expected_behaviour: `No dependency in the lockfile is affected by ${id}. ${fixText}`,
          observable_test_conditions: [
            `\`npm audit --json\` no longer lists ${id} for ${name}`,
            'the test suite passes on the upgraded dependency tree',
          ],
          forbidden_in_test: [
            'ignoring the advisory in audit configuration',
            'pinning the vulnerable version with overrides to silence the audit',
          ],
          fixable: fix !== false,
        }),
      );
    }
  }
  return drafts;
}

export interface DependencyAuditOptions {
  readonly timeoutMs?: number;
  /** Registry to audit against (npm's configured registry when absent). */
  readonly registry?: string;
  /** The npm executable (default `npm`). */
  readonly npm?: string;
  /**
   * An OSV export to audit against instead of asking the registry (RLOOP_ADVISORIES): a directory
   * of OSV JSON files and `all.zip` exports, or one such zip. Every lockfile of the repository is
   * then audited offline (npm, crates.io, Go and PyPI).
   */
  readonly advisories?: string;
}

/** What to tell an operator whose audit cannot run: both ways to make it run. */
export const AUDIT_REMEDY =
  'to audit offline, set RLOOP_ADVISORIES to an OSV export (`rloop advisories update` downloads one; `rloop review --advisories <path>`), ' +
  'or give npm a registry that answers its bulk advisory endpoint (npm_config_registry, `rloop review --registry <url>`)';

function runNpmAudit(
  npm: string,
  args: readonly string[],
  cwd: string,
  signal: AbortSignal,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    execFile(
      npm,
      [...args],
      {
        cwd,
        signal,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' },
      },
      (error, stdout, stderr) => {
        if (error !== null && (error.name === 'AbortError' || signal.aborted)) {
          reject(signal.reason instanceof Error ? signal.reason : error);
          return;
        }
        if (error !== null && typeof error.code === 'string') {
          reject(
            new CriticNotRunnableError(`npm could not be started (${error.code}): ${error.message}`, { cause: error }),
          );
          return;
        }
        resolve({ stdout, stderr, code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1 });
      },
    );
  });
}

const LOCKFILES = ['package-lock.json', 'npm-shrinkwrap.json'] as const;
/** What npm audit reads: the manifest and lockfile at the repository's root. */
const AUDITED_FILES: readonly string[] = ['package.json', ...LOCKFILES];
/** Manifests the OSV audit reads to place findings on the line that declares a dependency. */
const MANIFEST_NAMES = new Set(['package.json', 'Cargo.toml', 'pyproject.toml', 'Pipfile', 'setup.cfg']);
/** Lockfiles that pin a root package.json's npm dependencies. */
const NPM_ROOT_LOCKFILES = ['package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml'];

/**
 * One of the audited files' text (whatever its size: npm reads it whole anyway); null when the
 * checkout does not have it; not runnable when it has it but it cannot be read (a link out of it).
 */
function readAudited(context: CriticContext, file: string): string | null {
  const text = context.reader.readWhole(file);
  const outcome = context.reader.outcome(file);
  if (text !== null || outcome === undefined || outcome.ok || outcome.reason === 'missing') return text;
  throw new CriticNotRunnableError(`${file} cannot be audited: ${outcome.detail}`);
}

/** The root package.json's dependency count, or null without one. */
function rootDependencyCount(manifestText: string | null): number | null {
  if (manifestText === null) return null;
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(manifestText) as Record<string, unknown>;
  } catch (error) {
    throw new CriticNotRunnableError(`package.json is not valid JSON: ${describeError(error)}`, { cause: error });
  }
  return ['dependencies', 'devDependencies', 'optionalDependencies'].reduce((n, field) => {
    const deps = manifest[field];
    return n + (typeof deps === 'object' && deps !== null ? Object.keys(deps).length : 0);
  }, 0);
}

/** `toolchain/dependency-audit`: CVEs of the locked dependency trees, from an OSV export or `npm audit --json`. */
export function dependencyAuditCritic(options: DependencyAuditOptions = {}): CriticDefinition {
  const offline = options.advisories;
  return defineCritic({
    id: 'toolchain/dependency-audit',
    evidence: 'toolchain',
    description:
      offline === undefined
        ? 'Known vulnerabilities (CVEs/GHSAs) of the locked dependency tree from `npm audit --json`; every advisory is critical (Decision 8). Fails as not runnable when the registry does not answer.'
        : `Known vulnerabilities of every lockfile's resolved versions (npm, crates.io, Go, PyPI), matched offline against the OSV export ${offline}; every advisory is critical (Decision 8).`,
    triggers: [
      '**/package.json',
      '**/package-lock.json',
      '**/npm-shrinkwrap.json',
      '**/yarn.lock',
      '**/pnpm-lock.yaml',
      '**/Cargo.lock',
      '**/go.mod',
      '**/poetry.lock',
      '**/uv.lock',
      '**/Pipfile.lock',
      '**/requirements*.txt',
    ],
    timeoutMs: options.timeoutMs ?? 180_000,
    covers:
      offline === undefined
        ? (file) => AUDITED_FILES.includes(file)
        : (file) => lockfileEcosystem(file) !== null || MANIFEST_NAMES.has(posix.basename(file)),
    run: (context) => (offline === undefined ? npmAudit(context, options) : osvAudit(context, offline)),
  });
}

async function npmAudit(context: CriticContext, options: DependencyAuditOptions): Promise<readonly FindingDraft[]> {
  // Read through the checkout's reader before npm reads them: a manifest or lockfile that is a
  // link out of the checkout is never handed to npm.
  const manifestText = readAudited(context, 'package.json');
  const lockText = LOCKFILES.map((name) => readAudited(context, name)).find((text) => text !== null) ?? null;
  const others = (await context.repoFiles()).filter(
    (file) => lockfileEcosystem(file) !== null && !LOCKFILES.some((name) => name === file),
  );
  if (others.length > 0) {
    context.note?.(
      `not audited by npm audit (it reads the root package-lock.json only): ${others.slice(0, 5).join(', ')}${others.length > 5 ? ` and ${others.length - 5} more` : ''}; set RLOOP_ADVISORIES to an OSV export to audit them`,
    );
  }
  const depCount = rootDependencyCount(manifestText);
  if (depCount === null) {
    context.note?.('no package.json: there are no npm dependencies to audit');
    return [];
  }
  if (depCount === 0) {
    context.note?.('package.json declares no dependencies: nothing to audit');
    return [];
  }
  if (lockText === null) {
    throw new CriticNotRunnableError(
      'no package-lock.json or npm-shrinkwrap.json: npm audit needs a lockfile to know what is installed (run `npm install --package-lock-only`)',
    );
  }
  const args = [
    'audit',
    '--json',
    '--package-lock-only',
    ...(options.registry === undefined ? [] : ['--registry', options.registry]),
  ];
  const { stdout, stderr } = await runNpmAudit(options.npm ?? 'npm', args, context.repoDir, context.signal);
  let body: unknown;
  try {
    body = JSON.parse(stdout);
  } catch (error) {
    throw new CriticNotRunnableError(
      `npm audit did not produce JSON: ${(stderr || stdout).trim().split('\n').slice(-2).join(' ')}; ${AUDIT_REMEDY}`,
      { cause: error },
    );
  }
  const report = AuditReport.safeParse(body);
  if (!report.success) {
    const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const error =
      typeof record['error'] === 'object' && record['error'] !== null
        ? (record['error'] as Record<string, unknown>)
        : {};
    const message = [record['message'], error['summary'], error['code']]
      .filter((part) => typeof part === 'string' && part !== '')
      .join(' — ');
    throw new CriticNotRunnableError(
      `npm audit could not run: ${message === '' ? 'unexpected output' : message}; ${AUDIT_REMEDY}`,
    );
  }
  return auditFindings(report.data, manifestText, lockText);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

async function osvAudit(context: CriticContext, exportPath: string): Promise<readonly FindingDraft[]> {
  let database: AdvisoryDatabase;
  try {
    database = AdvisoryDatabase.load(exportPath);
  } catch (error) {
    if (error instanceof AdvisoriesUnavailableError)
      throw new CriticNotRunnableError(
        `${error.message}; or unset RLOOP_ADVISORIES to ask the npm registry (npm audit)`,
        { cause: error },
      );
    throw error;
  }
  const summary = database.summary;
  const now = context.now ?? new Date();
  const counts = Object.entries(summary.records).map(([ecosystem, n]) => `${n} ${ecosystem}`);
  context.note?.(
    `OSV export ${exportPath}: ${counts.length === 0 ? 'no records of npm, crates.io, Go or PyPI' : counts.join(', ')} record(s)` +
      `${summary.withdrawn > 0 ? ` (${summary.withdrawn} withdrawn)` : ''}; ${exportAge(summary, now)}` +
      `${summary.unreadable > 0 ? `; ${plural(summary.unreadable, 'file')} not readable as OSV (${summary.unreadableExamples.join(', ')})` : ''}`,
  );

  const all = await context.repoFiles();
  const inPlan = new Set(context.files);
  const lockfiles = all.filter((file) => {
    if (lockfileEcosystem(file) === null) return false;
    // npm reads npm-shrinkwrap.json instead of package-lock.json when both are there.
    return !(
      posix.basename(file) === 'package-lock.json' &&
      all.includes(posix.join(posix.dirname(file), 'npm-shrinkwrap.json').replace(/^\.\//, ''))
    );
  });
  const rootCount = rootDependencyCount(readAudited(context, 'package.json'));
  if (rootCount !== null && rootCount > 0 && !NPM_ROOT_LOCKFILES.some((name) => lockfiles.includes(name))) {
    throw new CriticNotRunnableError(
      `package.json declares dependencies but there is no lockfile (${NPM_ROOT_LOCKFILES.join(', ')}): the installed versions are unknown (run \`npm install --package-lock-only\`)`,
    );
  }
  const readings: LockfileReading[] = [];
  for (const file of lockfiles) {
    const text = inPlan.has(file) ? readAudited(context, file) : context.reader.readWhole(file);
    if (text === null) continue;
    let reading: LockfileReading;
    try {
      reading = readLockfile(file, text);
    } catch (error) {
      if (!(error instanceof LockfileFormatError)) throw error;
      context.note?.(`${error.message}: not audited`);
      if (inPlan.has(file)) context.coverage.skipped(file, 'parse_error', error.message);
      continue;
    }
    if (!database.covers(reading.ecosystem)) {
      context.note?.(
        `${file} not audited: the OSV export holds no ${reading.ecosystem} records (\`rloop advisories update --ecosystem ${reading.ecosystem}\`)`,
      );
      if (inPlan.has(file))
        context.coverage.skipped(file, 'not_read', `the OSV export holds no ${reading.ecosystem} records`);
      continue;
    }
    readings.push(reading);
  }
  // Plan files that are manifests are read too (their lines hold the findings of direct dependencies).
  const manifests = new Map<string, string | null>();
  const manifestText = (file: string): string | null => {
    if (!manifests.has(file)) manifests.set(file, all.includes(file) ? context.reader.readWhole(file) : null);
    return manifests.get(file) ?? null;
  };
  for (const file of context.files) if (MANIFEST_NAMES.has(posix.basename(file))) manifestText(file);
  if (readings.length === 0) {
    context.note?.('no lockfile with resolved versions: nothing to audit');
    return [];
  }
  const result = osvAuditFindings({ database, readings, manifestText, now });
  context.note?.(
    `audited ${readings.map((r) => `${r.file} (${plural(r.packages.length, `${r.ecosystem} package`)})`).join(', ')}`,
  );
  const unaudited = readings.filter((r) => r.unaudited.length > 0);
  if (unaudited.length > 0) {
    context.note?.(
      `not matched (no registry version): ${unaudited.map((r) => `${r.file}: ${r.unaudited.slice(0, 3).join(', ')}${r.unaudited.length > 3 ? ` and ${r.unaudited.length - 3} more` : ''}`).join('; ')}`,
    );
  }
  if (result.withdrawnMatches > 0)
    context.note?.(`${plural(result.withdrawnMatches, 'match')} with withdrawn advisories ignored`);
  if (result.undecidable.length > 0)
    context.note?.(
      `versions some advisory range could not be compared with: ${result.undecidable.slice(0, 5).join(', ')}`,
    );
  return result.drafts;
}
