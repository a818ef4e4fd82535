import { SAST_RULE_TEXTS } from '../sast/critics.js';

/** What SARIF says about a rule: the same text on every run for the same rule id, whatever was found. */
export interface RuleDescription {
  readonly name: string;
  readonly shortDescription: string;
  readonly fullDescription: string;
  readonly helpText: string;
  readonly helpMarkdown: string;
  readonly helpUri?: string;
  readonly tags: readonly string[];
  /** SARIF default level. */
  readonly level: 'error' | 'warning' | 'note';
  /** GitHub's 0.1–10 security score, for security rules. */
  readonly securitySeverity?: string;
}

interface Family {
  readonly short: (rest: string) => string;
  readonly full: (rest: string) => string;
  readonly fix: (rest: string) => string;
  readonly tags: readonly string[];
  readonly level: RuleDescription['level'];
  readonly securitySeverity?: string;
  readonly helpUri?: (rest: string) => string | undefined;
}

/** A language linter's rules (`<tool>/<rule>`): named after the tool, fixed by changing the code until it no longer reports them. */
function toolRules(
  tool: string,
  rules: Pick<Family, 'full'> & Partial<Pick<Family, 'tags' | 'helpUri'>> & { readonly hint?: string },
): Family {
  return {
    short: (r) => `${tool} ${r}`,
    full: rules.full,
    fix: (r) =>
      `Change the code so ${tool} no longer reports ${r}${rules.hint === undefined ? '' : `; ${rules.hint}`}.`,
    tags: rules.tags ?? ['correctness'],
    level: 'warning',
    ...(rules.helpUri === undefined ? {} : { helpUri: rules.helpUri }),
  };
}

const FAMILIES: Readonly<Record<string, Family>> = {
  eslint: {
    short: (r) => `ESLint rule ${r}`,
    full: (r) =>
      `ESLint reports a violation of ${r} (the repository's ESLint configuration, or ESLint's recommended rules when it has none). A warning counts like an error here: the review is clean at zero warnings.`,
    fix: (r) => `Change the code so ESLint no longer reports ${r}; \`eslint --fix\` fixes many rules mechanically.`,
    tags: ['maintainability'],
    level: 'warning',
    helpUri: (r) =>
      r.startsWith('@typescript-eslint/')
        ? `https://typescript-eslint.io/rules/${r.slice('@typescript-eslint/'.length)}`
        : r.includes('/')
          ? undefined
          : `https://eslint.org/docs/latest/rules/${r}`,
  },
  tsc: {
    short: (code) => `TypeScript ${code}`,
    full: (code) => `The TypeScript compiler reports ${code} under the project's compiler options.`,
    fix: () => 'Fix the types or the code; do not silence the checker (@ts-ignore, `as any`).',
    tags: ['correctness'],
    level: 'error',
  },
  deprecation: {
    short: (name) => `Deprecated API ${name}`,
    full: (name) =>
      `The code uses ${name}, which its library marks @deprecated; deprecated APIs are removed in a later major version.`,
    fix: (name) => `Use the supported replacement of ${name}, keeping the behaviour the same.`,
    tags: ['maintainability'],
    level: 'warning',
  },
  secret: {
    short: (kind) => KEY_IN_USE_TEXT[kind]?.short ?? `Committed secret (${kind})`,
    full: (kind) =>
      KEY_IN_USE_TEXT[kind]?.full ??
      `A credential shaped like a ${kind} is written in the source; anyone who can read the repository or its history can use it.`,
    fix: (kind) =>
      KEY_IN_USE_TEXT[kind]?.fix ??
      'Read the credential at runtime from the environment or a secret manager, and revoke and rotate the exposed value (removing it from the file does not remove it from git history).',
    tags: ['security', 'external/cwe/cwe-798'],
    level: 'error',
    securitySeverity: '9.0',
  },
  cve: {
    short: (id) => `Vulnerable dependency (${id})`,
    full: (id) =>
      `A dependency in a lockfile (npm, yarn, pnpm, Cargo, Go or Python) is in a version range affected by the advisory ${id}.`,
    fix: (id) =>
      `Upgrade (or replace) the affected package so no installed version is affected by ${id} (the finding names the first fixed version; for npm, \`npm audit fix\` often can).`,
    tags: ['security', 'dependency'],
    level: 'error',
    securitySeverity: '7.5',
    helpUri: advisoryUri,
  },
  'malicious-package': {
    short: (id) => `Malicious package (${id})`,
    full: (id) =>
      `A dependency in a lockfile resolves to a version the advisory ${id} lists as published with malicious code.`,
    fix: () =>
      'Remove the package from the dependency tree, and rotate every credential the machines that installed it held.',
    tags: ['security', 'dependency', 'external/cwe/cwe-506'],
    level: 'error',
    securitySeverity: '10.0',
    helpUri: advisoryUri,
  },
  pyright: {
    short: (r) => `Pyright ${r}`,
    full: (r) => `The Python type checker pyright reports ${r} under the project's configuration.`,
    fix: () => 'Fix the types or the code; do not silence the checker (# type: ignore, # pyright: ignore).',
    tags: ['correctness'],
    level: 'error',
  },
  ruff: toolRules('ruff', {
    full: (r) =>
      `The Python linter ruff reports a violation of ${r}. A lint warning counts like an error here: the review is clean at zero warnings.`,
    hint: '`ruff check --fix` fixes many rules mechanically',
    tags: ['maintainability'],
  }),
  govet: toolRules('go vet', {
    full: (r) => `\`go vet\`'s ${r} analyzer reports a construct that compiles but is likely wrong.`,
    helpUri: (r) =>
      /^[a-z0-9]+$/.test(r) ? `https://pkg.go.dev/golang.org/x/tools/go/analysis/passes/${r}` : undefined,
  }),
  gotype: {
    short: () => 'Go type error',
    full: () => 'The Go type checker (run by `go vet`) reports an error: the package does not compile.',
    fix: () => 'Fix the types or the code so the package compiles.',
    tags: ['correctness'],
    level: 'error',
  },
  staticcheck: toolRules('staticcheck', {
    full: (r) =>
      `staticcheck reports ${r}: a bug, a performance problem, a simplification or a style issue in Go code.`,
    helpUri: (r) => (/^[A-Z]+\d+$/.test(r) ? `https://staticcheck.dev/docs/checks/#${r}` : undefined),
  }),
  'golangci-lint': toolRules('golangci-lint', {
    full: (r) => `golangci-lint's ${r.split('/')[0] ?? r} linter reports ${r} in Go code.`,
    tags: ['maintainability'],
  }),
  clippy: toolRules('clippy', {
    full: (r) =>
      `\`cargo clippy\` reports the lint clippy::${r}. A lint warning counts like an error here: the review is clean at zero warnings.`,
    hint: '`cargo clippy --fix` applies the suggestions it can make mechanically',
    tags: ['maintainability'],
    helpUri: (r) =>
      /^[a-z0-9_]+$/.test(r) ? `https://rust-lang.github.io/rust-clippy/master/index.html#${r}` : undefined,
  }),
  rustc: {
    short: (r) => `Rust compiler ${r}`,
    full: (r) => `The Rust compiler (under \`cargo clippy\`) reports ${r}.`,
    fix: () => 'Fix the code so it compiles without the diagnostic; do not silence it with #[allow].',
    tags: ['correctness'],
    level: 'error',
    helpUri: (r) => (/^E\d{4}$/.test(r) ? `https://doc.rust-lang.org/error_codes/${r}.html` : undefined),
  },
  shellcheck: toolRules('ShellCheck', {
    full: (r) => `ShellCheck reports ${r} in a shell script.`,
    hint: 'its wiki page explains the fix',
    helpUri: (r) => (/^SC\d+$/.test(r) ? `https://www.shellcheck.net/wiki/${r}` : undefined),
  }),
  complexity: {
    short: () => 'Function too complex',
    full: () =>
      "A function's cyclomatic or cognitive complexity is over the threshold (config/critics.yaml settings of quality/complexity): each path is one more case to read, test and keep right.",
    fix: () =>
      'Split the function into smaller ones (or its branches into a table), keeping the behaviour the same and testing each part.',
    tags: ['maintainability'],
    level: 'note',
  },
  coverage: {
    short: (kind) => COVERAGE_TEXT[kind]?.short ?? 'Code the tests never run',
    full: (kind) =>
      COVERAGE_TEXT[kind]?.full ?? 'Code under review that the coverage report of the tests shows as never run.',
    fix: () => 'Add a test that runs the code and checks its effect (not one that only imports it).',
    tags: ['correctness', 'tests'],
    level: 'warning',
  },
  eol: {
    short: (name) => `End-of-life dependency ${name}`,
    full: (name) => `${name} is past its end of life (or deprecated, or in maintenance only): it no longer gets fixes.`,
    fix: (name) => `Move from ${name} to a supported release or its replacement.`,
    tags: ['maintainability', 'dependency'],
    level: 'warning',
  },
  duplicate: {
    short: (kind) => duplicateText(kind).short,
    full: (kind) => duplicateText(kind).full,
    fix: (kind) => duplicateText(kind).fix,
    tags: ['maintainability'],
    level: 'warning',
  },
  db: {
    short: (rule) => `Database migration: ${rule.replace(/-/g, ' ')}`,
    full: (rule) =>
      `A schema change (${rule.replace(/-/g, ' ')}) that can lock, fail or lose data on a populated table.`,
    fix: () =>
      'Split the migration into steps that are safe on a live table (add nullable, backfill, then constrain; index foreign keys).',
    tags: ['correctness', 'database'],
    level: 'warning',
  },
  rloop: {
    short: (rule) => `Suppression comment: ${rule.replace(/^suppression-/, '').replace(/-/g, ' ')}`,
    full: () =>
      'An `rloop-ignore` comment that does not work: it has no reason, its date has passed, or it matches no finding.',
    fix: () =>
      'Write `rloop-ignore <rule-or-critic> -- <reason>` on the flagged line or the line before (optionally `until=YYYY-MM-DD`), or remove the comment.',
    tags: ['maintainability'],
    level: 'note',
  },
};

/** One rule's text, for families whose rules read differently by kind. */
interface RuleText {
  readonly short: string;
  readonly full: string;
  readonly fix: string;
}

const AGAINST_REPO: RuleText = {
  short: 'Code duplicating existing code',
  full: 'A block of the reviewed code repeats code that already exists elsewhere in the repository.',
  fix: 'Extract the shared logic once and call it from both places (the finding names the other copy).',
};

/** The secrets detector's rules about a literal used as a key (`secret/<kind>`); other kinds are committed credentials of a known shape. */
const KEY_IN_USE_TEXT: Readonly<Record<string, RuleText | undefined>> = {
  'hardcoded-key': {
    short: 'Hard-coded key in use',
    full: 'A literal is passed as a signing, encryption, session or HMAC key or an OAuth client secret: anyone who can read the repository can forge or read what the key protects.',
    fix: 'Read the key at runtime from the environment or a secret manager, fail at start when it is missing, and rotate the exposed value.',
  },
  'hardcoded-key-fallback': {
    short: 'Hard-coded fallback for a key',
    full: 'A key read from the environment falls back to a literal: a deployment that forgets the variable runs with a key anyone who can read the repository knows.',
    fix: 'Fail at start when the variable is missing instead of falling back to a literal, and rotate the exposed value.',
  },
};

/** An advisory's page: GitHub's for a GHSA, osv.dev's for every other id it serves (CVE, PYSEC, GO, RUSTSEC, MAL). */
function advisoryUri(id: string): string | undefined {
  if (/^GHSA-[a-z0-9-]+$/i.test(id)) return `https://github.com/advisories/${id}`;
  return /^(CVE|PYSEC|GO|RUSTSEC|MAL|OSV)-[A-Za-z0-9-]+$/.test(id) ? `https://osv.dev/vulnerability/${id}` : undefined;
}

/** The test-coverage critic's rules (`coverage/<kind>`). */
const COVERAGE_TEXT: Readonly<Record<string, Omit<RuleText, 'fix'> | undefined>> = {
  'file-not-loaded': {
    short: 'File no test loads',
    full: 'No test of the run the coverage report comes from loads the file: none of its code is exercised.',
  },
  'function-not-run': {
    short: 'Function the tests never run',
    full: 'The coverage report shows that no line of the function body ran during the tests.',
  },
  'lines-not-run': {
    short: 'Lines the tests never run',
    full: 'The coverage report shows lines under review that never ran during the tests.',
  },
};

/** The duplicate detector's rules (`duplicate/<kind>`). */
const DUPLICATE_TEXT: Readonly<Record<string, RuleText | undefined>> = {
  'within-change': {
    short: 'Duplicated code within the change',
    full: 'The same block of code appears more than once in the reviewed files.',
    fix: AGAINST_REPO.fix,
  },
  'against-repo': AGAINST_REPO,
  'repeated-shape': {
    short: 'Type-only shape declared several times',
    full: 'Several declarations (interfaces, type aliases, signatures, DTO classes) repeat one type-only shape under other names: no copied logic, but each change to the shape has to be made in every one.',
    fix: 'Where the language or a framework does not force the repetition, declare the shape once (a generic, a mapped or derived type, a base class) and refer to it (the finding names the others).',
  },
};

/** A duplicate rule's text; a kind this table does not know reads as a copy of existing code. */
function duplicateText(kind: string): RuleText {
  return DUPLICATE_TEXT[kind] ?? AGAINST_REPO;
}

const TAINT: Family = {
  short: (type) => SAST_RULE_TEXTS.get(type)?.title ?? type,
  full: (type) =>
    `${SAST_RULE_TEXTS.get(type)?.title ?? type}: untrusted input reaches a dangerous call without a sanitiser, allowlist check or parameter binding.`,
  fix: (type) => SAST_RULE_TEXTS.get(type)?.expected ?? 'Validate or encode the input before it reaches the call.',
  tags: ['security'],
  level: 'error',
  securitySeverity: '8.0',
};

const OTHER: Family = {
  short: (id) => id,
  full: (id) => `Rule ${id}, reported by an LLM reviewer or an external analysis tool.`,
  fix: () => 'See the finding for what the reviewer expects instead.',
  tags: ['maintainability'],
  level: 'warning',
};

/** A rule's stable SARIF description, from its id alone (`eslint/prefer-const`, `sast/sql-injection`, …). */
export function describeRule(ruleId: string): RuleDescription {
  const slash = ruleId.indexOf('/');
  const prefix = slash < 0 ? ruleId : ruleId.slice(0, slash);
  const rest = slash < 0 ? ruleId : ruleId.slice(slash + 1);
  const taint = SAST_RULE_TEXTS.has(ruleId);
  const family = taint ? TAINT : (FAMILIES[prefix] ?? OTHER);
  const subject = taint || family === OTHER ? ruleId : rest;
  const helpUri = family.helpUri?.(rest);
  const dismiss = `To accept one finding instead, write \`rloop-ignore ${ruleId} -- <reason>\` in a comment on its line or the line before.`;
  const short = family.short(subject);
  const full = family.full(subject);
  const fix = family.fix(subject);
  return {
    name: ruleId.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase()),
    shortDescription: short,
    fullDescription: full,
    helpText: `${full}\n\nHow to fix: ${fix}${helpUri === undefined ? '' : `\n\nDocumentation: ${helpUri}`}\n\n${dismiss}`,
    helpMarkdown: `**${short}**\n\n${full}\n\n**How to fix:** ${fix}${helpUri === undefined ? '' : `\n\n[Documentation](${helpUri})`}\n\n${dismiss}`,
    ...(helpUri === undefined ? {} : { helpUri }),
    tags: family.tags,
    level: family.level,
    ...(family.securitySeverity === undefined ? {} : { securitySeverity: family.securitySeverity }),
  };
}
