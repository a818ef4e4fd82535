import { join, posix } from 'node:path';
import { z } from 'zod';
import type { CriticContext } from '../critic.js';
import { CriticNotRunnableError } from '../errors.js';
import {
  type LanguageRunInput,
  type LanguageRunResult,
  type ToolDiagnostic,
  type ToolchainLanguage,
  type ToolchainProject,
  mirrorProject,
} from './family.js';
import { findExecutable, runTool, toolEnvironment, toolMissing } from './run-tool.js';

// Rust: `cargo clippy --message-format=json`. Compiling a crate runs code: its build scripts
// (build.rs) and procedural macros, and those of every dependency it names. So clippy runs on its
// own only for a workspace where nothing would run (no build script, no proc-macro crate, no
// dependency); anything more is the operator's opt-in (config/trust.yaml
// `toolchains.cargo_build_scripts`, `rloop review --allow-build-scripts`), and then it runs offline
// (`--offline`: nothing is fetched) and, where bubblewrap is installed, without network and with
// only its scratch directories writable. Either way cargo never reads the repository's own
// `.cargo/config.toml` (which can name a rustc wrapper or linker: programs the repository chooses)
// nor its `rust-toolchain` file (which can name a toolchain directory): the workspace is copied to a
// scratch directory without them, and the host's default toolchain runs.

const SKIPPED_IN_COPY = /(^|\/)(\.cargo|target|\.git)(\/|$)|(^|\/)rust-toolchain(\.toml)?$/;

export interface RustToolchainOptions {
  /** The operator allows build scripts and proc macros to run (they are the repository's code). */
  readonly allowBuildScripts?: boolean;
}

/** The directory cargo treats as the workspace: the highest Cargo.toml above the project that declares `[workspace]`. */
function workspaceRoot(context: CriticContext, project: ToolchainProject, repoFiles: ReadonlySet<string>): string {
  let root = project.root;
  let dir = project.root;
  while (dir !== '') {
    dir = posix.dirname(dir) === '.' ? '' : posix.dirname(dir);
    const manifest = dir === '' ? 'Cargo.toml' : `${dir}/Cargo.toml`;
    if (repoFiles.has(manifest) && /^\s*\[workspace\]/m.test(context.reader.read(manifest) ?? '')) root = dir;
  }
  return root;
}

/** What compiling the workspace would run: build scripts, proc-macro crates, dependencies (with theirs). */
export function codeRunAtBuild(files: readonly string[], read: (file: string) => string | null): string[] {
  const reasons: string[] = [];
  for (const file of files) {
    const base = posix.basename(file);
    if (base === 'build.rs') reasons.push(`the build script ${file}`);
    if (base === 'Cargo.toml') {
      const text = read(file) ?? '';
      if (/^\s*proc-macro\s*=\s*true/m.test(text)) reasons.push(`the proc-macro crate ${file}`);
      if (/^\s*build\s*=\s*"/m.test(text)) reasons.push(`the build script named in ${file}`);
    }
    if (base === 'Cargo.lock') {
      const external = (read(file) ?? '').match(/^source\s*=\s*"/gm)?.length ?? 0;
      if (external > 0) reasons.push(`${external} dependencies in ${file} (their build scripts and proc macros)`);
    }
  }
  return reasons;
}

const CargoMessage = z.looseObject({
  reason: z.string(),
  message: z
    .looseObject({
      level: z.string(),
      message: z.string(),
      code: z.looseObject({ code: z.string() }).nullable().optional(),
      spans: z
        .array(
          z.looseObject({
            file_name: z.string(),
            line_start: z.number(),
            line_end: z.number(),
            is_primary: z.boolean(),
            suggestion_applicability: z.string().nullable().optional(),
          }),
        )
        .default([]),
      children: z
        .array(
          z.looseObject({
            spans: z.array(z.looseObject({ suggestion_applicability: z.string().nullable().optional() })).default([]),
          }),
        )
        .default([]),
    })
    .optional(),
  success: z.boolean().optional(),
});

/** Reads cargo's `--message-format=json` lines; paths are relative to the workspace root, mapped to `prefix`. */
export function parseCargoMessages(
  stdout: string,
  prefix: string,
): { diagnostics: ToolDiagnostic[]; finished: boolean | null } {
  const diagnostics: ToolDiagnostic[] = [];
  let finished: boolean | null = null;
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    let parsed;
    try {
      parsed = CargoMessage.safeParse(JSON.parse(line));
    } catch {
      continue;
    }
    if (!parsed.success) continue;
    if (parsed.data.reason === 'build-finished') finished = parsed.data.success ?? null;
    const message = parsed.data.message;
    if (parsed.data.reason !== 'compiler-message' || message === undefined) continue;
    if (message.level !== 'error' && message.level !== 'warning') continue;
    const span = message.spans.find((s) => s.is_primary) ?? message.spans[0];
    // Summaries ("3 warnings emitted") and diagnostics in dependencies outside the workspace have no span of ours.
    if (span === undefined || posix.isAbsolute(span.file_name) || span.file_name.startsWith('..')) continue;
    const code = message.code?.code ?? (message.level === 'error' ? 'error' : 'warning');
    const fixable = [...message.spans, ...message.children.flatMap((c) => c.spans)].some(
      (s) => s.suggestion_applicability === 'MachineApplicable',
    );
    diagnostics.push({
      tool: code.startsWith('clippy::') ? 'clippy' : 'rustc',
      rule: code.replace(/^clippy::/, ''),
      file: prefix === '' ? posix.normalize(span.file_name) : posix.join(prefix, span.file_name),
      line: span.line_start,
      endLine: span.line_end,
      level: message.level === 'error' ? 'error' : 'warning',
      message: message.message,
      fixable,
    });
  }
  return { diagnostics, finished };
}

const CLIPPY_PROBES = new Map<string, Promise<{ readonly code: number | null }>>();

function remember(
  cargo: string,
  probe: Promise<{ readonly code: number | null }>,
): Promise<{ readonly code: number | null }> {
  CLIPPY_PROBES.set(cargo, probe);
  // A probe that failed to start is asked again next time.
  probe.catch(() => CLIPPY_PROBES.delete(cargo));
  return probe;
}

/** The Rust entry of the table. */
export function rustToolchain(
  host: Readonly<Record<string, string | undefined>>,
  options: RustToolchainOptions = {},
): ToolchainLanguage {
  return {
    id: 'toolchain/rust',
    language: 'Rust',
    description:
      "`cargo clippy --message-format=json` (rustc and clippy) on the Rust crates of the plan, offline; build scripts and proc macros run only with the operator's opt-in; every warning is critical (Decision 8)",
    triggers: ['**/*.rs'],
    manifests: ['Cargo.toml'],
    timeoutMs: 600_000,
    sourceFile: (file) => file.endsWith('.rs'),
    async run(input: LanguageRunInput): Promise<LanguageRunResult> {
      const { context } = input;
      const cacheRoot = context.cacheDir ?? join(context.repoDir, '..', '.rloop-rust-cache');
      const env = toolEnvironment(host, {
        CARGO_TARGET_DIR: join(cacheRoot, 'target'),
        CARGO_NET_OFFLINE: 'true',
        CARGO_TERM_COLOR: 'never',
        CARGO_INCREMENTAL: '0',
        // Empty values override a wrapper named in the host's own cargo configuration too.
        RUSTC_WRAPPER: '',
        RUSTC_WORKSPACE_WRAPPER: '',
      });
      const cargo = findExecutable(['cargo'], env['PATH']);
      if (cargo === null)
        throw toolMissing(
          'Rust',
          '`cargo`',
          'apt-get install cargo rust-clippy, or rustup (https://rustup.rs) with `rustup component add clippy`',
        );
      // Asked once per process and cargo: the answer does not change while the critic-runner runs.
      const probe = await (CLIPPY_PROBES.get(cargo) ??
        remember(
          cargo,
          runTool(cargo, ['clippy', '--version'], { cwd: context.repoDir, env, signal: context.signal }),
        ));
      if (probe.code !== 0)
        throw toolMissing(
          'Rust',
          'clippy (`cargo clippy`)',
          'apt-get install rust-clippy, or `rustup component add clippy`',
        );

      const repoFiles = new Set(input.repoFiles);
      const diagnostics: ToolDiagnostic[] = [];
      const failed = new Map<string, string>();
      const workspaces = new Map<string, string[]>();
      for (const project of input.projects) {
        if (!repoFiles.has(project.root === '' ? 'Cargo.toml' : `${project.root}/Cargo.toml`)) {
          for (const file of project.files) failed.set(file, 'no Cargo.toml above it: not part of a crate');
          continue;
        }
        const root = workspaceRoot(context, project, repoFiles);
        workspaces.set(root, [...(workspaces.get(root) ?? []), ...project.files]);
      }
      for (const [root, files] of workspaces) {
        const inside = input.repoFiles.filter(
          (f) =>
            (root === '' || f.startsWith(`${root}/`)) &&
            !SKIPPED_IN_COPY.test(root === '' ? f : f.slice(root.length + 1)),
        );
        const runs = codeRunAtBuild(inside, (f) => context.reader.read(f));
        if (runs.length > 0 && options.allowBuildScripts !== true) {
          throw new CriticNotRunnableError(
            `Rust: compiling ${root === '' ? 'the workspace' : root} would run code (${runs.slice(0, 3).join('; ')}), and cargo clippy cannot check it without compiling it; ` +
              'an operator who trusts the repository allows build scripts in config/trust.yaml (toolchains.cargo_build_scripts: true) or with `rloop review --allow-build-scripts`',
          );
        }
        const scratch = mirrorProject(context, input.repoFiles, root, 'rust', SKIPPED_IN_COPY);
        if (runs.length > 0)
          context.note?.(
            `Rust: build scripts and proc macros ran (the operator allows them): ${runs.slice(0, 3).join('; ')}`,
          );
        const output = await runTool(
          cargo,
          ['clippy', '--message-format=json', '--all-targets', '--offline', '--quiet'],
          { cwd: scratch, env, signal: context.signal },
        );
        const read = parseCargoMessages(output.stdout, root);
        diagnostics.push(...read.diagnostics);
        if (read.diagnostics.length === 0 && output.code !== 0) {
          const why = `cargo clippy failed: ${output.stderr
            .trim()
            .split('\n')
            .filter((l) => l.trim() !== '')
            .slice(0, 2)
            .join(' ')
            .slice(0, 250)}`;
          context.note?.(`${root === '' ? 'the workspace' : root}: ${why}`);
          for (const file of files) failed.set(file, why);
        }
      }
      return { diagnostics, failed };
    },
  };
}
