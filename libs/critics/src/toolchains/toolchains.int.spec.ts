import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CriticDefinition, type CriticRunResult, builtInCritics, runCritic } from '../index.js';
import { type FixtureRepo, fixtureRepo } from '../__fixtures__/repo.js';

// Each language's own tools, run for real on a small repository with known warnings and on its
// fixed twin: pyright and ruff (npm), go vet and staticcheck (Debian: golang-go, go-staticcheck),
// cargo clippy (rustup or Debian: cargo, rust-clippy), ShellCheck (Debian: shellcheck). .ci/run
// installs what a fresh machine lacks. golangci-lint is not installable here: its output is
// tested as recorded (recorded.unit.spec.ts).

let cache: string;
beforeAll(() => {
  cache = mkdtempSync(join(tmpdir(), 'rloop-toolchains-cache-'));
});
afterAll(() => rmSync(cache, { recursive: true, force: true }));

function critic(
  id: string,
  options: { allowBuildScripts?: boolean; hostEnv?: Record<string, string | undefined> } = {},
): CriticDefinition {
  const [found] = builtInCritics({ only: [id], ...options });
  if (found === undefined) throw new Error(`no critic ${id}`);
  return found;
}

async function review(
  definition: CriticDefinition,
  repo: FixtureRepo,
  files: readonly string[],
): Promise<CriticRunResult> {
  return runCritic(
    definition,
    {
      repoDir: repo.dir,
      commit: '0'.repeat(40),
      files,
      phase: 'final_sweep',
      cacheDir: join(cache, definition.id.replace('/', '__')),
    },
    { core: true },
  );
}

const found = (result: CriticRunResult): string[] =>
  result.status === 'reported'
    ? result.findings.map((f) => `${f.finding_type} ${f.file}:${f.line_range.start} ${f.severity}`).sort()
    : [`${result.reason}: ${result.message}`];

describe('toolchain/python (pyright + ruff)', () => {
  it('reports the type error and the lint warning on their lines, nothing on the fixed twin, and skips imports of packages not installed here', async () => {
    const repo = fixtureRepo({
      'pyproject.toml': '[project]\nname = "app"\nversion = "0.1.0"\n',
      'app/main.py':
        'import os\nimport numpy_not_installed_here\n\n\ndef total(items: list[int]) -> int:\n    return sum(items)\n\n\nlabel: str = total([1, 2])\nprint(numpy_not_installed_here)\n',
      'app/fixed.py':
        'def total(items: list[int]) -> int:\n    return sum(items)\n\n\nlabel: str = str(total([1, 2]))\n',
      'README.md': '# app\n',
    });
    try {
      const result = await review(critic('toolchain/python'), repo, ['app/main.py', 'app/fixed.py', 'README.md']);
      expect(found(result)).toEqual([
        'pyright/reportAssignmentType app/main.py:9 critical',
        'ruff/F401 app/main.py:1 critical',
      ]);
      expect(result.coverage).toMatchObject({ considered: 3, analysed: 2, unsupported: 1, skipped_total: 0 });
      expect(result.notes.join('\n')).toMatch(/1 import\(s\) of packages not installed on this host were not checked/);
      const unused =
        result.status === 'reported' ? result.findings.find((f) => f.finding_type === 'ruff/F401') : undefined;
      expect(unused).toMatchObject({ fixable: true, category: 'correctness' });
    } finally {
      repo.remove();
    }
  }, 120_000);

  it("reads the project's ruff settings (pyproject [tool.ruff]) and its pyright configuration", async () => {
    const repo = fixtureRepo({
      'pyproject.toml':
        '[tool.ruff.lint]\nselect = ["E", "F"]\nignore = ["F401"]\n\n[tool.pyright]\nreportAssignmentType = "warning"\n',
      'main.py': 'import os\nlabel: str = 1\nx = 1 ;\n',
    });
    try {
      const result = await review(critic('toolchain/python'), repo, ['main.py']);
      // F401 ignored, E703 (a statement ending in a semicolon) selected; pyright's rule downgraded to a warning: still critical.
      expect(found(result)).toEqual([
        'pyright/reportAssignmentType main.py:2 critical',
        'ruff/E703 main.py:3 critical',
      ]);
      expect(
        result.status === 'reported'
          ? result.findings.find((f) => f.finding_type === 'pyright/reportAssignmentType')?.score
          : null,
      ).toBe(7);
    } finally {
      repo.remove();
    }
  }, 120_000);
});

describe('toolchain/go (go vet, staticcheck)', () => {
  it('vets each package of the plan, reports analyzers and type errors, and says which package could not load', async () => {
    const repo = fixtureRepo({
      'svc/go.mod': 'module example.org/svc\n\ngo 1.19\n\nrequire github.com/not/cached v1.0.0\n',
      'svc/main.go': 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Printf("%d\\n", "seven")\n}\n',
      'svc/ok/ok.go':
        'package ok\n\nimport "fmt"\n\n// Hello greets.\nfunc Hello(name string) string { return fmt.Sprintf("hello %s", name) }\n',
      'svc/deps/deps.go': 'package deps\n\nimport "github.com/not/cached"\n\nvar X = cached.Y\n',
    });
    try {
      const result = await review(critic('toolchain/go'), repo, ['svc/main.go', 'svc/ok/ok.go', 'svc/deps/deps.go']);
      expect(found(result)).toEqual([
        'govet/printf svc/main.go:6 critical',
        'staticcheck/SA5009 svc/main.go:6 critical',
      ]);
      expect(result.coverage?.analysed).toBe(2);
      expect(result.coverage?.skipped).toEqual([
        {
          file: 'svc/deps/deps.go',
          reason: 'parse_error',
          detail: expect.stringMatching(
            /^go vet could not load its package: .*github\.com\/not\/cached/,
          ) as unknown as string,
        },
      ]);
    } finally {
      repo.remove();
    }
  }, 180_000);

  it("runs golangci-lint when the host has it, without the repository's configuration (a stand-in printing its documented report: it cannot be installed here)", async () => {
    const repo = fixtureRepo({
      'go.mod': 'module x\n\ngo 1.19\n',
      'main.go': 'package main\n\nimport "os"\n\nfunc main() {\n\tos.Remove("x")\n}\n',
      '.golangci.yml': 'linters-settings:\n  custom:\n    pwn:\n      path: ./pwn.so\n',
    });
    const bin = mkdtempSync(join(tmpdir(), 'rloop-fake-golangci-'));
    const report = {
      Issues: [
        {
          FromLinter: 'errcheck',
          Text: 'Error return value of `os.Remove` is not checked',
          Severity: '',
          SourceLines: ['\tos.Remove("x")'],
          Pos: { Filename: 'main.go', Offset: 50, Line: 6, Column: 11 },
        },
      ],
      Report: {},
    };
    writeFileSync(
      join(bin, 'golangci-lint'),
      `#!/bin/sh\nif [ "$1" = --version ]; then echo "golangci-lint has version 2.1.6 built with go1.24.2"; exit 0; fi\ncase " $* " in *" --no-config "*) ;; *) echo "read the repository config" >&2; exit 3;; esac\ncase " $* " in *" --output.json.path stdout "*) ;; *) echo "v1 flags given to v2" >&2; exit 3;; esac\nprintf '%s\\n' '${JSON.stringify(report)}'\nexit 1\n`,
      { mode: 0o755 },
    );
    try {
      const result = await review(
        critic('toolchain/go', { hostEnv: { ...process.env, PATH: `${bin}:${process.env['PATH'] ?? ''}` } }),
        repo,
        ['main.go'],
      );
      expect(found(result).filter((f) => f.startsWith('golangci-lint'))).toEqual([
        'golangci-lint/errcheck main.go:6 critical',
      ]);
    } finally {
      repo.remove();
      rmSync(bin, { recursive: true, force: true });
    }
  }, 120_000);

  it('fails, naming the tool and how to install it, when go is not installed — never "0 findings"', async () => {
    const repo = fixtureRepo({ 'go.mod': 'module x\n\ngo 1.19\n', 'main.go': 'package main\n\nfunc main() {}\n' });
    try {
      const result = await review(
        critic('toolchain/go', { hostEnv: { PATH: '/nonexistent', HOME: process.env['HOME'] } }),
        repo,
        ['main.go'],
      );
      expect(result).toMatchObject({ status: 'failed', reason: 'not_runnable' });
      expect(result.status === 'failed' && result.message).toMatch(
        /Go: `go` \(for go vet\) is not installed on this host, so the plan's Go files cannot be checked \(install it: apt-get install golang-go/,
      );
      // Plans without Go files never need it.
      expect(
        found(await review(critic('toolchain/go', { hostEnv: { PATH: '/nonexistent' } }), repo, ['go.mod'])),
      ).toEqual([]);
    } finally {
      repo.remove();
    }
  });
});

describe('toolchain/rust (cargo clippy)', () => {
  const CRATE = '[package]\nname = "tool"\nversion = "0.1.0"\nedition = "2021"\n';

  it("reports clippy and rustc warnings on the plan's files without reading the repository's .cargo/config.toml", async () => {
    const repo = fixtureRepo({
      'tool/Cargo.toml': CRATE,
      // A wrapper the repository names would be its own program: never run. Its flags would turn on
      // the compile_error below: the configuration is not read at all.
      'tool/.cargo/config.toml': '[build]\nrustc-wrapper = "./pwn.sh"\nrustflags = ["-C", "debug-assertions=off"]\n',
      'tool/src/main.rs':
        'fn answer() -> i32 {\n    return 42;\n}\n\n#[cfg(not(debug_assertions))]\ncompile_error!("the repository\'s .cargo/config.toml was read");\n\nfn main() {\n    let unused = 1;\n    println!("{}", answer());\n}\n',
      'tool/src/lib.rs': 'pub fn double(x: i32) -> i32 {\n    x * 2\n}\n',
    });
    try {
      const result = await review(critic('toolchain/rust'), repo, ['tool/src/main.rs', 'tool/src/lib.rs']);
      expect(found(result)).toEqual([
        'clippy/needless_return tool/src/main.rs:2 critical',
        'rustc/unused_variables tool/src/main.rs:9 critical',
      ]);
      expect(result.coverage).toMatchObject({ analysed: 2, skipped_total: 0 });
    } finally {
      repo.remove();
    }
  }, 300_000);

  it('does not compile a crate whose build runs code unless the operator allows it, and says how', async () => {
    const repo = fixtureRepo({
      'Cargo.toml': CRATE,
      'build.rs': 'fn main() {}\n',
      'src/main.rs': 'fn main() {\n    let x = 1;\n    println!("{}", x);\n}\n',
    });
    try {
      const refused = await review(critic('toolchain/rust'), repo, ['src/main.rs']);
      expect(refused).toMatchObject({ status: 'failed', reason: 'not_runnable' });
      expect(refused.status === 'failed' && refused.message).toMatch(
        /would run code \(the build script build\.rs\).*toolchains\.cargo_build_scripts: true.*--allow-build-scripts/,
      );
      const allowed = await review(critic('toolchain/rust', { allowBuildScripts: true }), repo, ['src/main.rs']);
      expect(found(allowed)).toEqual([]);
      expect(allowed.notes.join('\n')).toMatch(/build scripts and proc macros ran \(the operator allows them\)/);
    } finally {
      repo.remove();
    }
  }, 300_000);
});

describe('toolchain/shell (ShellCheck)', () => {
  it('checks scripts by extension and by shebang; warnings critical, info medium; nothing on the fixed twin', async () => {
    const repo = fixtureRepo({
      'bin/deploy': '#!/bin/bash\ncd /srv\nrm -rf $TARGET/\n',
      'scripts/fixed.sh': '#!/bin/sh\ncd /srv || exit 1\nrm -rf "${TARGET:?}/"\n',
      'bin/tool.py': '#!/usr/bin/env python3\nprint(1)\n',
    });
    try {
      const result = await review(critic('toolchain/shell'), repo, ['bin/deploy', 'scripts/fixed.sh', 'bin/tool.py']);
      expect(found(result)).toEqual([
        'shellcheck/SC2086 bin/deploy:3 medium',
        'shellcheck/SC2115 bin/deploy:3 critical',
        'shellcheck/SC2164 bin/deploy:2 critical',
      ]);
      expect(result.coverage).toMatchObject({ considered: 3, analysed: 2, unsupported: 1 });
    } finally {
      repo.remove();
    }
  });
});
