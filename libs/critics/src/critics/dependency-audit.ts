import { execFile } from 'node:child_process';
import { z } from 'zod';
import { describeError } from '@rloop/contracts';
import type { CriticContext, CriticDefinition, FindingDraft } from '../critic.js';
import { CriticNotRunnableError } from '../errors.js';
import { defineCritic, draftFinding, findingTypeToken } from '../plumbing/define.js';

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
  fixAvailable: z.union([z.boolean(), z.looseObject({ name: z.string(), version: z.string(), isSemVerMajor: z.boolean().default(false) })]).default(false),
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
export function auditFindings(report: AuditReport, manifestText: string | null, lockText: string | null): FindingDraft[] {
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
          observable_test_conditions: [`\`npm audit --json\` no longer lists ${id} for ${name}`, 'the test suite passes on the upgraded dependency tree'],
          forbidden_in_test: ['ignoring the advisory in audit configuration', 'pinning the vulnerable version with overrides to silence the audit'],
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
}

function runNpmAudit(npm: string, args: readonly string[], cwd: string, signal: AbortSignal): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    execFile(npm, [...args], { cwd, signal, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' } }, (error, stdout, stderr) => {
      if (error !== null && (error.name === 'AbortError' || signal.aborted)) {
        reject(signal.reason instanceof Error ? signal.reason : error);
        return;
      }
      if (error !== null && typeof error.code === 'string') {
        reject(new CriticNotRunnableError(`npm could not be started (${error.code}): ${error.message}`, { cause: error }));
        return;
      }
      resolve({ stdout, stderr, code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1 });
    });
  });
}

const LOCKFILES = ['package-lock.json', 'npm-shrinkwrap.json'] as const;
/** What npm audit reads: the manifest and lockfile at the repository's root. */
const AUDITED_FILES: readonly string[] = ['package.json', ...LOCKFILES];

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

/** `toolchain/dependency-audit`: CVEs of the locked dependency tree from `npm audit --json`. */
export function dependencyAuditCritic(options: DependencyAuditOptions = {}): CriticDefinition {
  return defineCritic({
    id: 'toolchain/dependency-audit',
    evidence: 'toolchain',
    description: 'Known vulnerabilities (CVEs/GHSAs) of the locked dependency tree from `npm audit --json`; every advisory is critical (Decision 8). Fails as not runnable when the registry does not answer.',
    triggers: ['**/package.json', '**/package-lock.json', '**/npm-shrinkwrap.json'],
    timeoutMs: options.timeoutMs ?? 180_000,
    covers: (file) => AUDITED_FILES.includes(file),
    async run(context: CriticContext): Promise<readonly FindingDraft[]> {
      // Read through the checkout's reader before npm reads them: a manifest or lockfile that is a
      // link out of the checkout is never handed to npm.
      const manifestText = readAudited(context, 'package.json');
      const lockText = LOCKFILES.map((name) => readAudited(context, name)).find((text) => text !== null) ?? null;
      if (manifestText === null) {
        context.note?.('no package.json: there are no npm dependencies to audit');
        return [];
      }
      let manifest: Record<string, unknown>;
      try {
        manifest = JSON.parse(manifestText) as Record<string, unknown>;
      } catch (error) {
        throw new CriticNotRunnableError(`package.json is not valid JSON: ${describeError(error)}`, { cause: error });
      }
      const depCount = ['dependencies', 'devDependencies', 'optionalDependencies'].reduce((n, field) => {
        const deps = manifest[field];
        return n + (typeof deps === 'object' && deps !== null ? Object.keys(deps).length : 0);
      }, 0);
      if (depCount === 0) {
        context.note?.('package.json declares no dependencies: nothing to audit');
        return [];
      }
      if (lockText === null) {
        throw new CriticNotRunnableError('no package-lock.json or npm-shrinkwrap.json: npm audit needs a lockfile to know what is installed (run `npm install --package-lock-only`)');
      }
      const args = ['audit', '--json', '--package-lock-only', ...(options.registry === undefined ? [] : ['--registry', options.registry])];
      const { stdout, stderr } = await runNpmAudit(options.npm ?? 'npm', args, context.repoDir, context.signal);
      let body: unknown;
      try {
        body = JSON.parse(stdout);
      } catch (error) {
        throw new CriticNotRunnableError(`npm audit did not produce JSON: ${(stderr || stdout).trim().split('\n').slice(-2).join(' ')}`, { cause: error });
      }
      const report = AuditReport.safeParse(body);
      if (!report.success) {
        const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
        const error = typeof record['error'] === 'object' && record['error'] !== null ? (record['error'] as Record<string, unknown>) : {};
        const message = [record['message'], error['summary'], error['code']].filter((part) => typeof part === 'string' && part !== '').join(' — ');
        throw new CriticNotRunnableError(`npm audit could not run: ${message === '' ? 'unexpected output' : message}`);
      }
      return auditFindings(report.data, manifestText, lockText);
    },
  });
}
