import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { codeRunAtBuild, parseCargoMessages } from './rust.js';
import { parseGoVet, parseGolangci, parseStaticcheck } from './go.js';
import { groupByProject, toolDiagnosticDraft } from './family.js';
import { parseShellcheck } from './shell.js';
import { parsePyright, withDefaultRules } from './python.js';

// The tools' output formats, on output recorded from real runs (go vet 1.19, staticcheck 2023.1,
// clippy 1.95, ShellCheck 0.9, pyright 1.1.414) and, for golangci-lint — which cannot be installed
// on this machine — a report in its documented JSON shape (Issues[].FromLinter/Text/Pos/LineRange/
// Replacement), written here.

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
const brief = (d: { tool: string; rule: string; file: string; line: number; level: string }): string =>
  `${d.tool}/${d.rule} ${d.file}:${d.line} ${d.level}`;

describe('tool output as recorded', () => {
  it('go vet -json: analyzer findings from the JSON blocks, type errors from `vet:` lines, paths made repo-relative', () => {
    const read = parseGoVet(fixture('go-vet.stderr'), ['/tmp/gop'], '/tmp/gop');
    expect(read.diagnostics.map(brief)).toEqual([
      'gotype/typecheck pkg/p.go:5 error',
      'govet/printf main.go:6 warning',
    ]);
    expect(read.failures).toEqual([]);
    const missing = parseGoVet(
      'a/a.go:3:8: missing go.sum entry for module providing package github.com/pkg/errors (imported by example.org/gop2/a); to add:\n\tgo get example.org/gop2/a\n',
      ['/tmp/gop2'],
      '/tmp/gop2',
    );
    expect(missing).toEqual({
      diagnostics: [],
      failures: [expect.stringMatching(/^a\/a\.go:3:8: missing go\.sum entry/) as unknown as string],
    });
  });

  it('staticcheck -f json: one object per line; compile errors left to go vet; ST checks are readability', () => {
    const found = parseStaticcheck(fixture('staticcheck.jsonl'), ['/tmp/gop'], '/tmp/gop');
    expect(found.map(brief)).toEqual(['staticcheck/SA5009 main.go:6 error', 'staticcheck/ST1003 main.go:3 warning']);
    expect(found[1]?.category).toBe('readability');
  });

  it('golangci-lint JSON: linter and check as the rule, replacements as fixes, files outside the checkout dropped', () => {
    const found = parseGolangci(fixture('golangci-lint-v2.json'), ['/repo'], '/repo');
    expect(found?.map((d) => `${brief(d)} fixable=${d.fixable}`)).toEqual([
      'golangci-lint/errcheck store/file.go:14 warning fixable=false',
      'golangci-lint/staticcheck/SA4006 store/file.go:16 warning fixable=false',
      'golangci-lint/gofmt store/file.go:9 warning fixable=true',
    ]);
    expect(parseGolangci('level=error msg="[linters_context] typechecking error"', ['/repo'], '/repo')).toBeNull();
  });

  it('cargo --message-format=json: clippy lints and rustc warnings on workspace files, summaries and dependencies left out', () => {
    const line = (message: Record<string, unknown>): string => JSON.stringify({ reason: 'compiler-message', message });
    const stdout = [
      line({
        level: 'warning',
        message: 'unneeded `return` statement',
        code: { code: 'clippy::needless_return' },
        spans: [{ file_name: 'src/main.rs', line_start: 2, line_end: 2, is_primary: true }],
        children: [{ spans: [{ suggestion_applicability: 'MachineApplicable' }] }],
      }),
      line({
        level: 'warning',
        message: 'unused variable: `x`',
        code: { code: 'unused_variables' },
        spans: [{ file_name: 'src/main.rs', line_start: 6, line_end: 6, is_primary: true }],
        children: [],
      }),
      line({ level: 'warning', message: '2 warnings emitted', code: null, spans: [], children: [] }),
      line({
        level: 'warning',
        message: 'in a dependency',
        code: { code: 'dead_code' },
        spans: [{ file_name: '/root/.cargo/registry/src/x/lib.rs', line_start: 1, line_end: 1, is_primary: true }],
        children: [],
      }),
      JSON.stringify({ reason: 'build-finished', success: true }),
    ].join('\n');
    const read = parseCargoMessages(stdout, 'tool');
    expect(read.diagnostics.map((d) => `${brief(d)} fixable=${d.fixable}`)).toEqual([
      'clippy/needless_return tool/src/main.rs:2 warning fixable=true',
      'rustc/unused_variables tool/src/main.rs:6 warning fixable=false',
    ]);
    expect(read.finished).toBe(true);
  });

  it('knows what compiling a Rust workspace would run', () => {
    const files: Record<string, string> = {
      'Cargo.toml': '[package]\nname = "a"\n',
      'macros/Cargo.toml': '[lib]\nproc-macro = true\n',
      'Cargo.lock': '[[package]]\nname = "serde"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\n',
      'b/build.rs': 'fn main() {}\n',
    };
    expect(codeRunAtBuild(Object.keys(files), (f) => files[f] ?? null)).toEqual([
      'the proc-macro crate macros/Cargo.toml',
      '1 dependencies in Cargo.lock (their build scripts and proc macros)',
      'the build script b/build.rs',
    ]);
    expect(codeRunAtBuild(['Cargo.toml', 'src/main.rs'], (f) => files[f] ?? null)).toEqual([]);
  });

  it('shellcheck -f json1 and pyright --outputjson', () => {
    const shell = parseShellcheck(
      '{"comments":[{"file":"./bin/deploy","line":2,"endLine":2,"column":1,"endColumn":8,"level":"warning","code":2164,"message":"Use \'cd ... || exit\'.","fix":{"replacements":[]}}]}',
      ['/r'],
      '/r',
    );
    expect(shell?.map((d) => `${brief(d)} fixable=${d.fixable}`)).toEqual([
      'shellcheck/SC2164 bin/deploy:2 warning fixable=true',
    ]);
    expect(parseShellcheck('not json', ['/r'], '/r')).toBeNull();
    const pyright = parsePyright(
      JSON.stringify({
        generalDiagnostics: [
          {
            file: '/r/app/a.py',
            severity: 'error',
            message: 'Import "x" could not be resolved',
            range: { start: { line: 0 }, end: { line: 0 } },
            rule: 'reportMissingImports',
          },
          {
            file: '/r/app/a.py',
            severity: 'warning',
            message: 'Code is unreachable',
            range: { start: { line: 4 }, end: { line: 5 } },
            rule: 'reportUnreachable',
          },
        ],
      }),
      ['/r'],
      '/r/app',
    );
    expect(pyright).toEqual({
      diagnostics: [
        expect.objectContaining({
          tool: 'pyright',
          rule: 'reportUnreachable',
          file: 'app/a.py',
          line: 5,
          endLine: 6,
          level: 'warning',
        }),
      ],
      missingPackages: 1,
    });
  });
});

describe('the family', () => {
  it('groups files by the nearest project manifest above them', () => {
    expect(
      groupByProject(
        ['svc/a/x.go', 'svc/b.go', 'tools/t.go', 'main.go'],
        ['svc/go.mod', 'tools/go.mod', 'svc/a/x.go'],
        ['go.mod'],
      ),
    ).toEqual([
      { root: '', files: ['main.go'] },
      { root: 'svc', files: ['svc/a/x.go', 'svc/b.go'] },
      { root: 'tools', files: ['tools/t.go'] },
    ]);
  });

  it('makes errors and warnings critical (Decision 8), info medium, style low', () => {
    const draft = (level: 'error' | 'warning' | 'info' | 'style') =>
      toolDiagnosticDraft(
        { tool: 'shellcheck', rule: 'SC1', file: 'a.sh', line: 3, endLine: 3, level, message: 'm', fixable: false },
        'ShellCheck',
      );
    expect(
      [draft('error'), draft('warning'), draft('info'), draft('style')].map(
        (d) => `${d.severity} ${d.score} ${d.category}`,
      ),
    ).toEqual(['critical 8 correctness', 'critical 7 correctness', 'medium 5 correctness', 'low 2 readability']);
  });

  it('ruff gets its command-line default rules unless the project selects its own', () => {
    expect(withDefaultRules({})).toEqual({ lint: { select: ['E4', 'E7', 'E9', 'F'] } });
    expect(withDefaultRules({ lint: { select: ['E'] } })).toEqual({ lint: { select: ['E'] } });
    expect(withDefaultRules({ lint: { 'extend-select': ['B'] } })).toEqual({
      lint: { 'extend-select': ['B'], select: ['E4', 'E7', 'E9', 'F'] },
    });
  });
});
