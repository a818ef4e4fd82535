/**
 * Which built-in critic raises the rules of each prefix (`eslint/no-eval` → the compiler and
 * linter critic). Used to tell whether a suppression's target was reviewed at all, so one aimed at
 * a critic that did not run is never called unused.
 */
export const RULE_PREFIX_OWNERS: Readonly<Record<string, string>> = {
  eslint: 'toolchain/compiler-linter',
  tsc: 'toolchain/compiler-linter',
  deprecation: 'toolchain/compiler-linter',
  duplicate: 'quality/duplicate-code-detector',
  sast: 'security/sast-scanner',
  validation: 'security/input-validation-checker',
  secret: 'security/secrets-detector',
  cve: 'toolchain/dependency-audit',
  'malicious-package': 'toolchain/dependency-audit',
  pyright: 'toolchain/python',
  ruff: 'toolchain/python',
  govet: 'toolchain/go',
  gotype: 'toolchain/go',
  staticcheck: 'toolchain/go',
  'golangci-lint': 'toolchain/go',
  clippy: 'toolchain/rust',
  rustc: 'toolchain/rust',
  shellcheck: 'toolchain/shell',
  complexity: 'quality/complexity',
  coverage: 'quality/test-coverage',
  eol: 'toolchain/dependency-eol',
  db: 'specialized/database-reviewer',
  rloop: 'review/suppressions',
};

/** The critic that raises a rule (or is named), or null when the rule's prefix is not a built-in one (an LLM's or a SARIF tool's). */
export function ownerOfTarget(target: string, criticIds: readonly string[]): string | null {
  if (criticIds.includes(target)) return target;
  const prefix = target.split('/')[0] ?? '';
  return RULE_PREFIX_OWNERS[prefix] ?? null;
}
