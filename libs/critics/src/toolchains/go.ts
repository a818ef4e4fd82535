import { mkdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import { z } from 'zod';
import type { CriticContext } from '../critic.js';
import {
  type LanguageRunInput,
  type LanguageRunResult,
  type ToolDiagnostic,
  type ToolchainLanguage,
  type ToolchainProject,
  mirrorProject,
  repoRelative,
} from './family.js';
import { findExecutable, runTool, toolEnvironment, toolMissing } from './run-tool.js';

// Go: `go vet` (the type checker and vet's analyzers), plus staticcheck and golangci-lint when the
// host has them. None runs the repository's code: `go generate` is never called, cgo is off (its
// #cgo directives would run the C compiler with the repository's flags), the toolchain is the
// host's (GOTOOLCHAIN=local: a `toolchain` line never downloads one), go.work files are ignored
// (they could reach outside the checkout), and nothing is fetched (GOPROXY=off): packages whose
// dependencies are not in the host's module cache are reported as not analysed.

const POSITION = /^(.*?):(\d+)(?::(\d+))?$/;

function position(roots: readonly string[], cwd: string, posn: string): { file: string; line: number } | null {
  const match = POSITION.exec(posn);
  if (match === null) return null;
  const file = repoRelative(roots, cwd, match[1] ?? '');
  return file === null ? null : { file, line: Number(match[2]) };
}

/**
 * Reads `go vet -json` (stderr): `# package` headers, JSON objects `{pkg: {analyzer: [{posn,
 * message}]}}`, `vet: file:line:col: message` type errors, and `go:` errors for packages that did
 * not load (returned as `failures`, by package directory when it can be told).
 */
export function parseGoVet(
  stderr: string,
  roots: readonly string[],
  cwd: string,
): { diagnostics: ToolDiagnostic[]; failures: string[] } {
  const diagnostics: ToolDiagnostic[] = [];
  const failures: string[] = [];
  const lines = stderr.split('\n');
  let json: string[] | null = null;
  let depth = 0;
  for (const line of lines) {
    if (json !== null) {
      json.push(line);
      depth += (line.match(/{/g) ?? []).length - (line.match(/}/g) ?? []).length;
      if (depth <= 0) {
        readVetJson(json.join('\n'), roots, cwd, diagnostics);
        json = null;
      }
      continue;
    }
    if (line.startsWith('{')) {
      json = [line];
      depth = (line.match(/{/g) ?? []).length - (line.match(/}/g) ?? []).length;
      if (depth <= 0) {
        readVetJson(line, roots, cwd, diagnostics);
        json = null;
      }
      continue;
    }
    const typeError = /^vet: (.+?:\d+(?::\d+)?): (.*)$/.exec(line);
    if (typeError !== null) {
      const at = position(roots, cwd, typeError[1] ?? '');
      if (at !== null)
        diagnostics.push({
          tool: 'gotype',
          rule: 'typecheck',
          file: at.file,
          line: at.line,
          endLine: at.line,
          level: 'error',
          message: typeError[2] ?? '',
          fixable: false,
        });
      continue;
    }
    // Anything else but headers and continuation lines is the go command saying why a package did not load.
    if (line.trim() !== '' && !line.startsWith('#') && !line.startsWith('\t')) failures.push(line.trim());
  }
  return { diagnostics, failures };
}

function readVetJson(text: string, roots: readonly string[], cwd: string, into: ToolDiagnostic[]): void {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // A fragment that is not vet's JSON: nothing to read from it.
    return;
  }
  for (const analyzers of Object.values(value as Record<string, unknown>)) {
    for (const [analyzer, found] of Object.entries(analyzers as Record<string, unknown>)) {
      if (!Array.isArray(found)) continue;
      for (const item of found as { posn?: string; message?: string }[]) {
        const at = position(roots, cwd, item.posn ?? '');
        if (at === null) continue;
        into.push({
          tool: 'govet',
          rule: analyzer,
          file: at.file,
          line: at.line,
          endLine: at.line,
          level: 'warning',
          message: item.message ?? '',
          fixable: false,
        });
      }
    }
  }
}

const StaticcheckLine = z.looseObject({
  code: z.string(),
  severity: z.string().default('error'),
  location: z.looseObject({ file: z.string(), line: z.number() }),
  end: z.looseObject({ line: z.number() }).optional(),
  message: z.string(),
});

/** Reads `staticcheck -f json` (one object per line); `compile` entries are type errors go vet reports too. */
export function parseStaticcheck(stdout: string, roots: readonly string[], cwd: string): ToolDiagnostic[] {
  const diagnostics: ToolDiagnostic[] = [];
  for (const line of stdout.split('\n')) {
    if (line.trim() === '') continue;
    let parsed;
    try {
      parsed = StaticcheckLine.safeParse(JSON.parse(line));
    } catch {
      continue;
    }
    if (!parsed.success || parsed.data.code === 'compile' || parsed.data.severity === 'ignored') continue;
    const file = repoRelative(roots, cwd, parsed.data.location.file);
    if (file === null) continue;
    const line0 = parsed.data.location.line;
    diagnostics.push({
      tool: 'staticcheck',
      rule: parsed.data.code,
      file,
      line: line0,
      endLine: Math.max(line0, parsed.data.end?.line ?? line0),
      level: parsed.data.severity === 'error' ? 'error' : 'warning',
      message: parsed.data.message,
      fixable: false,
      ...(parsed.data.code.startsWith('ST') ? { category: 'readability' as const } : {}),
    });
  }
  return diagnostics;
}

const GolangciReport = z.looseObject({
  Issues: z
    .array(
      z.looseObject({
        FromLinter: z.string(),
        Text: z.string(),
        Severity: z.string().optional(),
        Pos: z.looseObject({ Filename: z.string(), Line: z.number() }),
        LineRange: z.looseObject({ From: z.number(), To: z.number() }).optional(),
        SuggestedFixes: z.array(z.unknown()).optional(),
        Replacement: z.unknown().optional(),
      }),
    )
    .nullable()
    .default([]),
});

/** Reads golangci-lint's JSON report (`--output.json.path stdout` in v2, `--out-format json` in v1). */
export function parseGolangci(stdout: string, roots: readonly string[], cwd: string): ToolDiagnostic[] | null {
  const start = stdout.indexOf('{');
  if (start < 0) return null;
  let parsed;
  try {
    parsed = GolangciReport.safeParse(JSON.parse(stdout.slice(start).split('\n')[0] ?? ''));
  } catch {
    return null;
  }
  if (!parsed.success) return null;
  const diagnostics: ToolDiagnostic[] = [];
  for (const issue of parsed.data.Issues ?? []) {
    const file = repoRelative(roots, cwd, issue.Pos.Filename);
    if (file === null) continue;
    const rule = /^(\S+?):\s/.exec(issue.Text)?.[1];
    diagnostics.push({
      tool: 'golangci-lint',
      rule: rule !== undefined && /^[A-Z]+\d+$/.test(rule) ? `${issue.FromLinter}/${rule}` : issue.FromLinter,
      file,
      line: issue.Pos.Line,
      endLine: issue.LineRange?.To ?? issue.Pos.Line,
      level:
        issue.Severity === 'info'
          ? 'info'
          : issue.Severity === 'error' || issue.Severity === '' || issue.Severity === undefined
            ? 'warning'
            : 'warning',
      message: issue.Text,
      fixable: (issue.SuggestedFixes?.length ?? 0) > 0 || issue.Replacement !== undefined,
    });
  }
  return diagnostics;
}

/** The packages (directories, `./`-relative to the module) holding the project's files. */
function packagesOf(project: ToolchainProject): string[] {
  return [...new Set(project.files.map((f) => posix.dirname(posix.relative(project.root, f))))]
    .sort()
    .map((dir) => (dir === '.' ? '.' : `./${dir}`));
}

function goEnvironment(
  host: Readonly<Record<string, string | undefined>>,
  context: CriticContext,
): Record<string, string> {
  const cache = context.cacheDir ?? join(context.repoDir, '..', '.rloop-go-cache');
  mkdirSync(join(cache, 'go-build'), { recursive: true });
  return toolEnvironment(host, {
    CGO_ENABLED: '0',
    GOTOOLCHAIN: 'local',
    GOWORK: 'off',
    GOPROXY: 'off',
    GOFLAGS: '-mod=readonly',
    GONOSUMDB: '*',
    GOSUMDB: 'off',
    GOTELEMETRY: 'off',
    GOCACHE: join(cache, 'go-build'),
    // Staticcheck keeps its own cache next to Go's.
    XDG_CACHE_HOME: cache,
    ...(host['GOMODCACHE'] === undefined ? {} : { GOMODCACHE: host['GOMODCACHE'] }),
    ...(host['GOPATH'] === undefined ? {} : { GOPATH: host['GOPATH'] }),
  });
}

/** The Go entry of the table. */
export function goToolchain(host: Readonly<Record<string, string | undefined>>): ToolchainLanguage {
  return {
    id: 'toolchain/go',
    language: 'Go',
    description:
      '`go vet` (types and analyzers), staticcheck and golangci-lint when installed, on the Go packages of the plan; every diagnostic is critical (Decision 8)',
    triggers: ['**/*.go'],
    manifests: ['go.mod'],
    timeoutMs: 240_000,
    sourceFile: (file) => file.endsWith('.go'),
    async run(input: LanguageRunInput): Promise<LanguageRunResult> {
      const { context } = input;
      const env = goEnvironment(host, context);
      const go = findExecutable(['go'], env['PATH']);
      if (go === null)
        throw toolMissing('Go', '`go` (for go vet)', 'apt-get install golang-go, or https://go.dev/doc/install');
      const staticcheck = findExecutable(['staticcheck', 'go-staticcheck'], env['PATH']);
      const golangci = findExecutable(['golangci-lint'], env['PATH']);
      const optional = [
        staticcheck === null ? 'staticcheck (apt-get install go-staticcheck)' : null,
        golangci === null ? 'golangci-lint' : null,
      ].filter((t): t is string => t !== null);
      if (optional.length > 0) context.note?.(`Go: not installed here, so not run: ${optional.join(', ')}; go vet ran`);
      const diagnostics: ToolDiagnostic[] = [];
      const failed = new Map<string, string>();
      for (const project of input.projects) {
        const packages = packagesOf(project);
        if (!input.repoFiles.includes(project.root === '' ? 'go.mod' : `${project.root}/go.mod`)) {
          for (const file of project.files)
            failed.set(file, 'no go.mod above it: Go packages outside a module are not vetted');
          continue;
        }
        // The module as the reader sees it: go reads every file of a package, links out included.
        const cwd = mirrorProject(context, input.repoFiles, project.root, 'go');
        const roots = [cwd];
        const ours = (found: readonly ToolDiagnostic[]): ToolDiagnostic[] =>
          found.map((d) => ({ ...d, file: project.root === '' ? d.file : `${project.root}/${d.file}` }));
        // All packages in one run; go vet stops at the first package that does not load (a
        // dependency missing from the module cache), so then each package is vetted on its own.
        const loaded: string[] = [];
        const vetOnce = async (pkgs: readonly string[]) => {
          const vet = await runTool(go, ['vet', '-json', ...pkgs], { cwd, env, signal: context.signal });
          return { vet, read: parseGoVet(vet.stderr, roots, cwd) };
        };
        const together = await vetOnce(packages);
        if (together.vet.code === 0 || together.read.failures.length === 0) {
          diagnostics.push(...ours(together.read.diagnostics));
          loaded.push(...packages);
        } else {
          for (const pkg of packages) {
            const { vet, read } = packages.length === 1 ? together : await vetOnce([pkg]);
            diagnostics.push(...ours(read.diagnostics));
            if (read.diagnostics.length > 0 || vet.code === 0) {
              loaded.push(pkg);
              continue;
            }
            const why = (read.failures[0] ?? vet.stderr.trim().split('\n')[0] ?? `exit ${vet.code}`).slice(0, 250);
            context.note?.(`go vet could not load ${posix.join(project.root, pkg)}: ${why}`);
            for (const file of project.files)
              if (`./${posix.dirname(posix.relative(project.root, file))}`.replace(/^\.\/\.$/, '.') === pkg)
                failed.set(file, `go vet could not load its package: ${why}`);
          }
        }
        if (loaded.length === 0) continue;
        if (staticcheck !== null) {
          const sc = await runTool(staticcheck, ['-f', 'json', ...loaded], { cwd, env, signal: context.signal });
          diagnostics.push(...ours(parseStaticcheck(sc.stdout, roots, cwd)));
        }
        if (golangci !== null) {
          const version = await runTool(golangci, ['--version'], { cwd, env, signal: context.signal });
          const v2 = /version v?2\./.test(version.stdout + version.stderr);
          // --no-config: a repository's .golangci.yml can load custom linters (Go plugins), which is its code.
          const args = v2
            ? ['run', '--no-config', '--output.json.path', 'stdout', '--show-stats=false', ...loaded]
            : ['run', '--no-config', '--out-format', 'json', ...loaded];
          const lint = await runTool(golangci, args, { cwd, env, signal: context.signal });
          const found = parseGolangci(lint.stdout, roots, cwd);
          if (found === null)
            context.note?.(
              `golangci-lint gave no report in ${project.root === '' ? 'the repository' : project.root}: ${lint.stderr.trim().split('\n').slice(-1).join('')}`,
            );
          else diagnostics.push(...ours(found));
        }
      }
      return { diagnostics, failed };
    },
  };
}
