import { z } from 'zod';
import type { LanguageRunInput, LanguageRunResult, ToolDiagnostic, ToolLevel, ToolchainLanguage } from './family.js';
import { checkoutRoots, repoRelative } from './family.js';
import { findExecutable, runTool, toolEnvironment, toolMissing } from './run-tool.js';

// Shell: ShellCheck (`-f json1`) on the plan's scripts — by extension, or by a sh/bash/dash/ksh
// shebang for scripts without one. It reads each script and the repository's .shellcheckrc (data);
// `source`d files are not followed (-x is not given), so nothing outside the scripts is read.

const SHELLS = /^#!\s*(?:\/usr\/bin\/env\s+(?:-S\s+)?)?(?:\/\S*\/)?(sh|bash|dash|ksh|zsh|mksh|bats)\b/;

const ShellcheckReport = z.looseObject({
  comments: z.array(
    z.looseObject({
      file: z.string(),
      line: z.number(),
      endLine: z.number().optional(),
      level: z.enum(['error', 'warning', 'info', 'style']),
      code: z.number(),
      message: z.string(),
      fix: z.unknown().optional(),
    }),
  ),
});

/** Reads `shellcheck -f json1`; null when it is not that output. */
export function parseShellcheck(stdout: string, roots: readonly string[], cwd: string): ToolDiagnostic[] | null {
  let parsed;
  try {
    parsed = ShellcheckReport.safeParse(JSON.parse(stdout));
  } catch {
    return null;
  }
  if (!parsed.success) return null;
  return parsed.data.comments.flatMap((c): ToolDiagnostic[] => {
    const file = repoRelative(roots, cwd, c.file);
    if (file === null) return [];
    const level: ToolLevel = c.level;
    return [
      {
        tool: 'shellcheck',
        rule: `SC${c.code}`,
        file,
        line: c.line,
        endLine: c.endLine ?? c.line,
        level,
        message: c.message,
        fixable: c.fix !== null && c.fix !== undefined,
        ...(level === 'style' ? { category: 'readability' as const } : {}),
      },
    ];
  });
}

/** The shell entry of the table. */
export function shellToolchain(host: Readonly<Record<string, string | undefined>>): ToolchainLanguage {
  return {
    id: 'toolchain/shell',
    language: 'shell',
    description:
      'ShellCheck on the shell scripts of the plan (by extension or shebang); errors and warnings are critical (Decision 8), info medium, style low',
    triggers: ['**/*.sh', '**/*.bash', '**/*.ksh', '**/*.bats'],
    manifests: [],
    timeoutMs: 120_000,
    sourceFile: (file) => /\.(sh|bash|ksh|dash|bats)$/.test(file),
    sourceText: (_file, text) => SHELLS.test(text),
    async run(input: LanguageRunInput): Promise<LanguageRunResult> {
      const { context } = input;
      const env = toolEnvironment(host);
      const shellcheck = findExecutable(['shellcheck'], env['PATH']);
      if (shellcheck === null)
        throw toolMissing(
          'shell',
          'ShellCheck',
          'apt-get install shellcheck, or https://github.com/koalaman/shellcheck#installing',
        );
      const files = input.projects.flatMap((p) => p.files);
      const output = await runTool(shellcheck, ['-f', 'json1', ...files.map((f) => `./${f}`)], {
        cwd: context.repoDir,
        env,
        signal: context.signal,
      });
      const diagnostics = parseShellcheck(output.stdout, checkoutRoots(context), context.repoDir);
      if (diagnostics === null) {
        const why = `shellcheck did not report (exit ${output.code}): ${output.stderr.trim().split('\n').slice(0, 2).join(' ').slice(0, 250)}`;
        return { diagnostics: [], failed: new Map(files.map((f) => [f, why])) };
      }
      return { diagnostics, failed: new Map() };
    },
  };
}
