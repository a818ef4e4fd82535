import { ALL_KINDS_MASK, type CheckKind, type TaintV, maskOf } from './model.js';

// The language-level catalogues of the taint engine (what JavaScript's own functions and naming
// habits mean) and the policies per check kind. Framework and library knowledge lives in models/,
// one file per framework. Names are matched on the syntax tree (no type checker), so each list says
// what it is for; README.md documents the rules and their limits.

/** Array, promise and observable methods whose callback receives the receiver's elements / resolved value. */
export const ELEMENT_CALLBACK_METHODS = new Set([
  'map',
  'forEach',
  'filter',
  'find',
  'findLast',
  'some',
  'every',
  'flatMap',
  'reduce',
  'reduceRight',
  'sort',
  'findIndex',
  'then',
  'finally',
  'subscribe',
]);

/** Methods whose result carries no attacker-controlled text (booleans, numbers, lengths). */
export const SAFE_RESULT_METHODS = new Set([
  'includes',
  'startsWith',
  'endsWith',
  'has',
  'test',
  'some',
  'every',
  'indexOf',
  'lastIndexOf',
  'findIndex',
  'search',
  'localeCompare',
  'isArray',
  'charCodeAt',
  'codePointAt',
  'getTime',
  'valueOf',
  'digest',
  'size',
  'count',
  'isValid',
  'hasOwnProperty',
]);

/** Free functions that turn any input into a number or boolean. */
export const NUMERIC_FUNCTIONS = new Set([
  'Number',
  'parseInt',
  'parseFloat',
  'Boolean',
  'BigInt',
  'isNaN',
  'isFinite',
]);

/** Free functions and module members that pass taint from their arguments to their result. */
export const PASS_THROUGH_FUNCTIONS = new Set([
  'String',
  'decodeURIComponent',
  'decodeURI',
  'unescape',
  'atob',
  'btoa',
  'format',
  'sprintf',
  'vsprintf',
  'concat',
  'join',
  'trim',
  'structuredClone',
  'Array',
]);
/** Sanitiser names: the check kinds a call of that name makes its result clean for. */
export function sanitiserKinds(name: string, receiver: string): number {
  const full = receiver === '' ? name : `${receiver}.${name}`;
  if (
    /^(DOMPurify|purify)\.sanitize$/i.test(full) ||
    /^(sanitizeHtml|sanitizeHTML|xss|filterXSS|escapeHtml|escapeHTML|htmlEscape|encodeHTML|htmlEncode|escapeXml|encodeForHTML)$/.test(
      name,
    )
  ) {
    return maskOf(['xss']);
  }
  if (/^(he|entities|validator|lodash|_|Handlebars|escaper)\.(encode|escape|escapeExpression)$/.test(full))
    return maskOf(['xss']);
  if (
    /^(mysql|SqlString|sqlstring|connection|conn|pool|db|client)\.(escape|escapeId)$/.test(full) ||
    /^(escapeLiteral|escapeIdentifier|escapeSql|escapeSQL|sqlEscape|quoteIdentifier|quoteLiteral|pgFormat)$/.test(name)
  ) {
    return maskOf(['sql']);
  }
  if (
    /^(shellEscape|shellescape|escapeShellArg|escapeShell|shellQuote|quoteShellArg)$/.test(name) ||
    /^(shellQuote|shell-quote|shq)\.quote$/.test(full)
  )
    return maskOf(['command']);
  if (/^(sanitizeFilename|sanitizeFileName|sanitizePath|safeFilename)$/.test(name)) return maskOf(['path']);
  if (name === 'encodeURIComponent') return maskOf(['xss', 'redirect']);
  if (name === 'encodeURI') return maskOf(['xss']);
  // A project's own escaping helper: trust the name for the kinds it names.
  if (/escape|saniti[sz]e|purify|encode/i.test(name) && !/decode|unescape/i.test(name)) {
    const lower = name.toLowerCase();
    const kinds: CheckKind[] = [];
    if (/html|xss|markup|entities/.test(lower)) kinds.push('xss');
    if (/sql|query|literal|identifier/.test(lower)) kinds.push('sql');
    if (/shell|cmd|command|arg/.test(lower)) kinds.push('command');
    if (/path|file/.test(lower)) kinds.push('path');
    if (/url|redirect|uri/.test(lower)) kinds.push('redirect', 'xss');
    return kinds.length === 0 ? maskOf(['xss', 'sql', 'command', 'path', 'redirect', 'code']) : maskOf(kinds);
  }
  return 0;
}

/** Calls that, as a guard (`if (!isValid(x)) return`), vouch for their argument. */
export function isValidatorName(name: string): boolean {
  if (
    /^(isArray|isBuffer|isEmpty|isNil|isNull|isUndefined|isObject|isString|isPlainObject|isAuthenticated|isAdmin|hasOwnProperty|hasOwn|isDirectory|isFile)$/.test(
      name,
    )
  )
    return false;
  return /^(is|has)[A-Z0-9_]|^(validate|verify|check|allow|permit|ensure)|valid|allowed|permitted|whitelist|allowlist|safe/i.test(
    name,
  );
}

/** Statement-level calls that throw unless their argument is valid (`assertSafe(x)`). */
export function isAssertionName(name: string): boolean {
  return (
    /^(assert|ensure|validateOrReject|verify|check|validateOrThrow|must)/i.test(name) || /OrThrow$|OrReject$/.test(name)
  );
}

/** Tagged templates that bind their interpolations as parameters (or escape them). */
export const SAFE_TEMPLATE_TAGS = /^(sql|SQL|Prisma\.sql|sqltag|gql|graphql|html|svg|css|\$|execa\.\$|cmd|sh|escape)$/;

/** Repo functions whose names say they validate/parse/log: passing raw input to them is fine. */
export const NOT_BUSINESS_LOGIC =
  /^(validate|parse|sanitize|sanitise|is|to|check|assert|normalize|normalise|escape|log|debug|info|warn|error|trace|handle|next|send|render|respond|reply|json|coerce|safe|clean|verify|compare|hash|encode|decode|format)/i;

/** The mask of every sink kind (clean for everything). */
export const CLEAN_ALL = ALL_KINDS_MASK;

/**
 * Origins that do not count for a kind: where a redirect or an outbound request goes is the
 * operator's choice when it comes from the environment or the command line (a CLI fetching the URL
 * it was given is doing its job).
 */
const IGNORED_ORIGINS: Partial<Record<CheckKind, ReadonlySet<TaintV['origin']>>> = {
  redirect: new Set(['env']),
  ssrf: new Set(['env', 'argv']),
};

/** Kinds a library's caller can reach: what a package does with its arguments in SQL, shells, code and paths. */
const CALLER_KINDS = new Set<CheckKind>(['sql', 'command', 'code', 'path']);

/**
 * Whether a tainted value reaching a sink of `kind` is a finding: the origin counts for the kind,
 * a URL built on a fixed origin keeps its host (redirects, outbound requests), and in library mode
 * an argument counts only when the function builds it into the sink's text — a function that
 * hands its argument to a sink whole (`run(cmd)`, `read(path)`) does what its caller asked.
 */
export function flowAllowed(kind: CheckKind, taint: TaintV): boolean {
  if (IGNORED_ORIGINS[kind]?.has(taint.origin) === true) return false;
  if ((kind === 'redirect' || kind === 'ssrf') && safeUrlPrefix(taint.prefix)) return false;
  if (taint.origin === 'caller')
    return (
      CALLER_KINDS.has(kind) && (taint.built || taint.normalized || (taint.prefix !== '' && taint.prefix !== null))
    );
  return true;
}

/**
 * A URL whose constant start fixes where it goes: a same-site path (`/account`, not `//host`), a
 * fixed origin with its path (`https://api.example.com/…`), a query or fragment, a relative path,
 * or an unknown constant start (`${BASE}/…`).
 */
export function safeUrlPrefix(prefix: string | null): boolean {
  if (prefix === null) return false;
  return (
    /^\/[^/\\]/.test(prefix) ||
    /^https?:\/\/[^/?#\\]+[/?#]/.test(prefix) ||
    /^[?#]/.test(prefix) ||
    /^\.\.?\//.test(prefix) ||
    prefix.startsWith('\u0000')
  );
}
