import type { CriticContext, CriticDefinition, FindingDraft } from '../critic.js';
import { defineCritic, draftFinding } from '../plumbing/define.js';
import { type CheckKind, type Origin, SINK_KINDS, VALIDATION_KINDS } from './model.js';
import { type TaintFlow, runTaintAnalysis } from './engine.js';
import { isCodeFile } from './project.js';

interface KindText {
  readonly type: string;
  readonly title: string;
  readonly severity: 'critical' | 'medium';
  readonly score: number;
  readonly sinkRole: string;
  readonly expected: string;
  readonly observable: (flow: TaintFlow) => string[];
  readonly forbidden: readonly string[];
}

const ORIGIN_TEXT: Readonly<Record<Origin, string>> = {
  http: 'request input',
  env: 'an environment variable',
  argv: 'a command-line argument',
  dom: 'the page URL',
  message: 'a socket or window message',
  stored: 'request input stored earlier and read back',
  caller: "an exported function's argument",
};

const COMMON_FORBIDDEN = [
  'mocking the sink (database driver, child_process, fs, response object) so the dangerous call is never exercised',
  'asserting only that a sanitiser function was called instead of observing the behaviour with a hostile input',
];

const TEXT: Readonly<Record<CheckKind, KindText>> = {
  sql: {
    type: 'sast/sql-injection',
    title: 'SQL injection',
    severity: 'critical',
    score: 10,
    sinkRole: 'is part of the SQL text passed to',
    expected:
      'User input never changes the SQL text: it is passed as a bound parameter (placeholder plus values array, or a tagged sql`` template), and identifiers such as sort columns come from an allowlist.',
    observable: (f) => [
      `with ${f.source.text} = "' OR '1'='1" the query returns only the rows the unmodified value would match (the input is treated as data)`,
      `with ${f.source.text} = "1; DROP TABLE users --" no second statement runs and the table still exists afterwards`,
      'the SQL text sent to the database is the same whatever the input value is',
    ],
    forbidden: [
      ...COMMON_FORBIDDEN,
      'asserting on the exact formatting of the SQL string instead of running it against a real (or in-memory) database',
    ],
  },
  command: {
    type: 'sast/command-injection',
    title: 'OS command injection',
    severity: 'critical',
    score: 10,
    sinkRole: 'reaches the command line run by',
    expected:
      'No shell parses user input: the program is fixed and the input is passed as one argument in an argument array (execFile/spawn without shell), or mapped from an allowlist.',
    observable: (f) => [
      `with ${f.source.text} = "x; touch /tmp/pwned" no file /tmp/pwned is created`,
      `with ${f.source.text} = "$(id)" the output does not contain the result of running id`,
      'the process is started with the input as a single argv element',
    ],
    forbidden: [
      ...COMMON_FORBIDDEN,
      'running the hostile payload against the real system outside a temporary sandbox directory',
    ],
  },
  code: {
    type: 'sast/code-injection',
    title: 'Code injection',
    severity: 'critical',
    score: 10,
    sinkRole: 'is evaluated as code by',
    expected:
      'User input is never compiled or evaluated as code: parse data with JSON.parse or a real parser, and pick behaviour from an allowlist of functions.',
    observable: (f) => [
      `with ${f.source.text} = "process.exit(1)" the process keeps running and the request is answered`,
      `with ${f.source.text} = "globalThis.pwned = 1" globalThis.pwned stays undefined`,
    ],
    forbidden: [...COMMON_FORBIDDEN],
  },
  path: {
    type: 'sast/path-traversal',
    title: 'Path traversal',
    severity: 'critical',
    score: 9,
    sinkRole: 'is used as a file path by',
    expected:
      'The resolved path stays inside the intended base directory: resolve it against the base and reject it unless it is contained (path.relative does not start with ".."), or use path.basename / an allowlist of names.',
    observable: (f) => [
      `with ${f.source.text} = "../../etc/passwd" the call is rejected (4xx or an error) and no file outside the base directory is read or written`,
      `with ${f.source.text} = "/etc/passwd" (an absolute path) the call is rejected too`,
      'a plain file name inside the base directory still works',
    ],
    forbidden: [...COMMON_FORBIDDEN, 'reading or writing real files outside a temporary test directory'],
  },
  redirect: {
    type: 'sast/open-redirect',
    title: 'Open redirect',
    severity: 'critical',
    score: 8,
    sinkRole: 'decides where the client is redirected by',
    expected:
      'Redirects only go to same-site paths or allowlisted hosts: check the parsed URL origin (or that the target starts with a single "/") before redirecting.',
    observable: (f) => [
      `with ${f.source.text} = "https://evil.example" the response does not redirect to evil.example`,
      `with ${f.source.text} = "//evil.example" the Location header does not point at another host`,
      'a same-site path such as "/account" still redirects',
    ],
    forbidden: [...COMMON_FORBIDDEN],
  },
  xss: {
    type: 'sast/xss',
    title: 'Cross-site scripting',
    severity: 'critical',
    score: 9,
    sinkRole: 'is written as HTML by',
    expected:
      'User input is HTML-escaped (or rendered by an escaping template, or sent as text/JSON) before it reaches HTML; markup from users is sanitised with an HTML sanitiser.',
    observable: (f) => [
      `with ${f.source.text} = "<script>alert(1)</script>" the response/DOM contains "&lt;script&gt;" and no script element`,
      `with ${f.source.text} = "<img src=x onerror=alert(1)>" no element with an onerror attribute is produced`,
    ],
    forbidden: [...COMMON_FORBIDDEN],
  },
  ssrf: {
    type: 'sast/ssrf',
    title: 'Server-side request forgery',
    severity: 'critical',
    score: 9,
    sinkRole: 'decides where the outbound request made by',
    expected:
      'Outbound requests only go to allowed destinations: parse the URL, check its protocol and host against an allowlist (exact host match, not a substring), or build it on a fixed origin and pass input only as an encoded path segment or query parameter.',
    observable: (f) => [
      `with ${f.source.text} = "http://169.254.169.254/latest/meta-data/" no request is made to the metadata address`,
      `with ${f.source.text} = "https://allowed.example.evil.net/" (an allowed name inside another host) no request leaves for evil.net`,
      `with ${f.source.text} = "file:///etc/passwd" the call is rejected`,
      'an allowed destination still works',
    ],
    forbidden: [
      ...COMMON_FORBIDDEN,
      'making real requests to internal or third-party hosts from the test (use a local server)',
    ],
  },
  business: {
    type: 'validation/unvalidated-input',
    title: 'Unvalidated request input reaches business logic',
    severity: 'medium',
    score: 5,
    sinkRole: 'is passed without validation to',
    expected:
      'Request input is parsed by a schema (zod, class-validator DTO, Joi) or checked against an allowlist before business logic uses it; invalid input is answered with 400.',
    observable: (f) => [
      `a request with ${f.source.text} of the wrong type or shape (an object, an array, an empty string, 10 000 characters) is answered with 400 and the business function is not called`,
      'a valid request still succeeds',
    ],
    forbidden: [
      'calling the business function directly (the test must go through the request handler)',
      'asserting on validation error message wording',
    ],
  },
  'mass-assignment': {
    type: 'validation/mass-assignment',
    title: 'Mass assignment: the whole request object is stored',
    severity: 'critical',
    score: 8,
    sinkRole: 'is written as a whole by',
    expected:
      'Only the fields a client may set are copied from the request (a schema with an explicit field list, or a pick of allowed keys); server-owned fields such as role, id or isAdmin are never taken from the request.',
    observable: (f) => [
      `a request whose ${f.source.text} includes {"role": "admin", "isAdmin": true, "id": 999} does not change those fields in storage`,
      'the fields a client may set are still stored',
    ],
    forbidden: ['mocking the ORM call so that nothing is stored', 'asserting only on the HTTP status'],
  },
  nosql: {
    type: 'validation/nosql-injection',
    title: 'NoSQL operator injection',
    severity: 'critical',
    score: 8,
    sinkRole: 'is used as a query filter value by',
    expected:
      'Filter values are coerced to strings (or validated as scalars) so a client cannot pass query operators such as {"$ne": null}.',
    observable: (f) => [
      `a request with ${f.source.text} = {"$ne": null} does not match every document (e.g. does not log in without a password)`,
    ],
    forbidden: ['mocking the database so the filter is never evaluated'],
  },
};

function draftFor(flow: TaintFlow): FindingDraft {
  const text = TEXT[flow.kind];
  const where = `${flow.source.file}:${flow.source.line}`;
  const viaText =
    flow.via.length === 0 ? '' : ` through ${flow.via.map((v) => `${v.text} (${v.file}:${v.line})`).join(' → ')}`;
  // Library mode guesses that callers pass untrusted values: a lower confidence than a request.
  const library = flow.origin === 'caller';
  const libraryNote = library
    ? ' (Library mode: the package is a library, so what its callers pass is treated as untrusted; lower confidence than a request — the function may document that it only takes trusted values.)'
    : '';
  return draftFinding({
    severity: library ? 'medium' : text.severity,
    score: library ? 5 : text.score,
    category: 'security',
    finding_type: text.type,
    file: flow.sink.file,
    line_range: { start: flow.sink.line, end: flow.sink.endLine },
    title: `${text.title}: ${ORIGIN_TEXT[flow.origin]} reaches ${flow.sinkName}`,
    current_behaviour: `${flow.source.text} (${ORIGIN_TEXT[flow.origin]}, ${where}) flows${viaText} and ${text.sinkRole} ${flow.sinkName} at ${flow.sink.file}:${flow.sink.line} without a sanitiser, allowlist check or parameter binding on the way.${libraryNote}`,
    expected_behaviour: text.expected,
    observable_test_conditions: text.observable(flow),
    forbidden_in_test: text.forbidden,
    related_locations: [
      {
        file: flow.source.file,
        line_range: { start: flow.source.line, end: flow.source.line },
        note: `taint source: ${flow.source.text}`,
      },
      ...flow.via.map((v) => ({
        file: v.file,
        line_range: { start: v.line, end: v.line },
        note: `passed on here: ${v.text}`,
      })),
    ],
  });
}

/** Keeps flows that touch the files under review (sink, source or a call site on the way). */
function touchesReview(flow: TaintFlow, files: ReadonlySet<string>): boolean {
  return files.has(flow.sink.file) || files.has(flow.source.file) || flow.via.some((v) => files.has(v.file));
}

/**
 * Library mode: `auto` (the default) turns it on when the repository's package.json describes a
 * library (see detectLibrary); `on`/`off` force it.
 */
export type LibraryMode = 'auto' | 'on' | 'off';

/**
 * Whether a package.json describes a library: not `private`, and it declares what it exports
 * (`exports`, `module`, `types`/`typings`), or a `main` without a `start` script (an application
 * started with `npm start` keeps npm init's `main` by habit). Untrusted text: anything but a JSON
 * object is no library, with the reason.
 */
export function detectLibrary(packageJson: string | null): { readonly library: boolean; readonly reason: string } {
  if (packageJson === null) return { library: false, reason: 'no package.json' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(packageJson);
  } catch {
    return { library: false, reason: 'package.json is not valid JSON' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { library: false, reason: 'package.json is not an object' };
  const pkg = parsed as Record<string, unknown>;
  if (pkg['private'] === true) return { library: false, reason: 'package.json is private' };
  const declared = ['exports', 'module', 'types', 'typings'].find((key) => pkg[key] !== undefined);
  if (declared !== undefined) return { library: true, reason: `package.json declares ${declared}` };
  const scripts =
    typeof pkg['scripts'] === 'object' && pkg['scripts'] !== null ? (pkg['scripts'] as Record<string, unknown>) : {};
  if (typeof pkg['main'] === 'string' && scripts['start'] === undefined)
    return { library: true, reason: 'package.json declares main and no start script' };
  return { library: false, reason: 'package.json declares no exports' };
}

export interface TaintCriticOptions {
  readonly id: string;
  readonly description: string;
  readonly triggers: readonly string[];
  readonly kinds: readonly CheckKind[];
  readonly origins: readonly Origin[];
  readonly timeoutMs?: number;
  /** Whether exported functions' parameters are sources (`caller`); off unless given. */
  readonly libraryMode?: LibraryMode;
}

function taintCritic(options: TaintCriticOptions): CriticDefinition {
  return defineCritic({
    id: options.id,
    evidence: 'dataflow',
    description: options.description,
    triggers: options.triggers,
    timeoutMs: options.timeoutMs ?? 300_000,
    covers: isCodeFile,
    async run(context: CriticContext): Promise<readonly FindingDraft[]> {
      // Every code file of the review is read, plus the rest of the repository's: flows cross files.
      const files = [...new Set([...(await context.repoFiles()), ...context.files])].sort();
      const reader = context.reader;
      const mode = options.libraryMode ?? 'off';
      const detected =
        mode === 'auto' ? detectLibrary(files.includes('package.json') ? reader.read('package.json') : null) : null;
      const libraryMode = mode === 'on' || detected?.library === true;
      if (mode !== 'off')
        context.note?.(`library mode ${libraryMode ? 'on' : 'off'} (${detected?.reason ?? 'configured'})`);
      const origins = new Set<Origin>(options.origins);
      if (libraryMode) origins.add('caller');
      const result = await runTaintAnalysis({
        reader,
        files,
        config: { kinds: new Set(options.kinds), origins, libraryMode },
        ...(context.cacheDir === undefined ? {} : { cacheDir: context.cacheDir }),
        cacheNamespace: options.id,
        signal: context.signal,
      });
      context.note?.(
        `${result.entries} entry files: ${result.analysed} analysed, ${result.reused} reused from the cache`,
      );
      const review = new Set(context.files);
      return result.flows.filter((flow) => touchesReview(flow, review)).map(draftFor);
    },
  });
}

/**
 * `security/sast-scanner`: taint from requests, messages, the environment, argv, the page URL and
 * stored request input into SQL, shell, code, file paths, redirects, HTML and outbound requests;
 * in library mode also from exported functions' arguments (medium: lower confidence).
 */
export function sastScannerCritic(
  options: { readonly timeoutMs?: number; readonly libraryMode?: LibraryMode } = {},
): CriticDefinition {
  return taintCritic({
    id: 'security/sast-scanner',
    description:
      'Pattern + dataflow analysis on the TypeScript AST: request, message, environment, argv and stored input flowing into SQL, shell, code, file paths, redirects, HTML and outbound requests, across functions and files; library mode for packages.',
    triggers: [],
    kinds: SINK_KINDS,
    origins: ['http', 'env', 'argv', 'dom', 'message', 'stored'],
    libraryMode: 'auto',
    ...options,
  });
}

/** `security/input-validation-checker`: the same engine, asking whether request input was validated before use. */
export function inputValidationCritic(options: { readonly timeoutMs?: number } = {}): CriticDefinition {
  return taintCritic({
    id: 'security/input-validation-checker',
    description:
      'The SAST engine configured for unvalidated request input: raw input passed to business logic, whole request objects stored (mass assignment), operator objects in NoSQL filters.',
    triggers: ['**/auth/**', '**/personal/**', '**/profile/**', '**/pii/**'],
    kinds: VALIDATION_KINDS,
    origins: ['http'],
    ...options,
  });
}

/** Each taint rule's name and what fixed code does (stable texts for SARIF rule metadata). */
export const SAST_RULE_TEXTS: ReadonlyMap<string, { readonly title: string; readonly expected: string }> = new Map(
  Object.values(TEXT).map((t) => [t.type, { title: t.title, expected: t.expected }]),
);
