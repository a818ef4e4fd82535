import type { CriticDefinition } from './critic.js';
import { compilerLinterCritic } from './critics/compiler-linter.js';
import { databaseReviewerCritic } from './critics/database/database-reviewer.js';
import { dependencyAuditCritic } from './critics/dependency-audit.js';
import { dependencyEolCritic } from './critics/dependency-eol.js';
import { secretsDetectorCritic } from './critics/secrets.js';
import { duplicateCodeCritic } from './duplicates/critic.js';
import { type LibraryMode, inputValidationCritic, sastScannerCritic } from './sast/critics.js';
import { TOOLCHAIN_CRITIC_IDS, toolchainCritics } from './toolchains/table.js';
import { complexityCritic, complexityThresholds } from './quality/complexity.js';
import { type CoverageSource, testCoverageCritic } from './test-coverage/critic.js';

/** The spec's core panel (Decision 1); the LLM code reviewer is provided elsewhere. */
export const CORE_CRITIC_IDS = [
  'quality/duplicate-code-detector',
  'security/sast-scanner',
  'quality/code-reviewer',
] as const;

/** Ids of the critics this package builds (the panel's catalogue refers to them). */
export const BUILT_IN_CRITIC_IDS = [
  'toolchain/compiler-linter',
  'quality/duplicate-code-detector',
  'security/sast-scanner',
  'security/secrets-detector',
  'toolchain/dependency-audit',
  'toolchain/dependency-eol',
  'specialized/database-reviewer',
  'security/input-validation-checker',
  ...TOOLCHAIN_CRITIC_IDS,
  'quality/complexity',
  'quality/test-coverage',
] as const;
export type BuiltInCriticId = (typeof BUILT_IN_CRITIC_IDS)[number];

export interface BuiltInCriticOptions {
  /** The review's time for date-dependent rules (EOL tables); the context's `now` wins when set. */
  readonly now?: Date;
  /** npm registry for the dependency audit (npm's configured one when absent). */
  readonly registry?: string;
  /** An OSV export the dependency audit matches offline instead of asking the registry (RLOOP_ADVISORIES). */
  readonly advisories?: string;
  /** Load the repository's own ESLint config (runs its code; default false: an operator's opt-in). */
  readonly useRepoEslintConfig?: boolean;
  /** Let cargo run build scripts and proc macros for toolchain/rust (the repository's code; default false: an operator's opt-in). */
  readonly allowBuildScripts?: boolean;
  /** Where the language tools take PATH, HOME and the locale from (default: this process's environment; its secrets are never passed on). */
  readonly hostEnv?: Readonly<Record<string, string | undefined>>;
  /** Settings of the critics that have some (config/critics.yaml `settings`), by critic id: quality/complexity's thresholds. */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** What the tests executed, for quality/test-coverage (absent: that critic is not configured). */
  readonly testCoverage?: CoverageSource;
  /** Only these critics (default: all). */
  readonly only?: readonly string[];
  /** The SAST scanner's library mode (default `auto`: on when package.json describes a library). */
  readonly sastLibraryMode?: LibraryMode;
  /** Timeouts per critic id, overriding the defaults. */
  readonly timeouts?: Readonly<Partial<Record<BuiltInCriticId, number>>>;
}

/** The deterministic critics, in a stable order. */
export function builtInCritics(options: BuiltInCriticOptions = {}): CriticDefinition[] {
  const timeout = (id: BuiltInCriticId): { timeoutMs?: number } => {
    const value = options.timeouts?.[id];
    return value === undefined ? {} : { timeoutMs: value };
  };
  const all: CriticDefinition[] = [
    compilerLinterCritic({
      ...timeout('toolchain/compiler-linter'),
      ...(options.useRepoEslintConfig === undefined ? {} : { useRepoEslintConfig: options.useRepoEslintConfig }),
    }),
    duplicateCodeCritic(timeout('quality/duplicate-code-detector')),
    sastScannerCritic({
      ...timeout('security/sast-scanner'),
      ...(options.sastLibraryMode === undefined ? {} : { libraryMode: options.sastLibraryMode }),
    }),
    secretsDetectorCritic(timeout('security/secrets-detector')),
    dependencyAuditCritic({
      ...timeout('toolchain/dependency-audit'),
      ...(options.registry === undefined ? {} : { registry: options.registry }),
      ...(options.advisories === undefined ? {} : { advisories: options.advisories }),
    }),
    dependencyEolCritic({
      ...timeout('toolchain/dependency-eol'),
      ...(options.now === undefined ? {} : { now: options.now }),
    }),
    databaseReviewerCritic(timeout('specialized/database-reviewer')),
    inputValidationCritic(timeout('security/input-validation-checker')),
    ...toolchainCritics({
      // The shell that builds the registry decides the host environment; a library call without one gets the process's.
      hostEnv: options.hostEnv ?? process.env,
      ...(options.allowBuildScripts === undefined ? {} : { allowBuildScripts: options.allowBuildScripts }),
      timeouts: Object.fromEntries(
        TOOLCHAIN_CRITIC_IDS.flatMap((id) =>
          options.timeouts?.[id] === undefined ? [] : [[id, options.timeouts[id]]],
        ),
      ),
    }),
    complexityCritic({
      ...timeout('quality/complexity'),
      thresholds: complexityThresholds(options.settings?.['quality/complexity']),
    }),
    testCoverageCritic({
      ...timeout('quality/test-coverage'),
      ...(options.testCoverage === undefined ? {} : { source: options.testCoverage }),
    }),
  ];
  if (options.only === undefined) return all;
  const unknown = options.only.filter((id) => !all.some((c) => c.id === id));
  if (unknown.length > 0)
    throw new TypeError(`unknown critic ${unknown.join(', ')}; built-in critics are ${BUILT_IN_CRITIC_IDS.join(', ')}`);
  return all.filter((critic) => options.only?.includes(critic.id) === true);
}
