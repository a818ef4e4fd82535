import { type CheckKind, maskOf } from './model.js';

/** The characters a regular expression can match at one position, or null when it matches anything. */
type CharSet = Set<string> | null;

const WORD = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_';
const DIGITS = '0123456789';
const SPACE = ' \t\n\r\f\v';

function addRange(set: Set<string>, from: string, to: string): void {
  for (let code = from.charCodeAt(0); code <= to.charCodeAt(0) && code - from.charCodeAt(0) < 512; code += 1)
    set.add(String.fromCharCode(code));
}

/** Parses a character class body (after `[`), returning its set, whether negated, and where it ends. */
function parseClass(source: string, start: number): { set: Set<string>; negated: boolean; end: number } | null {
  let i = start;
  const negated = source[i] === '^';
  if (negated) i += 1;
  const set = new Set<string>();
  let previous: string | null = null;
  while (i < source.length && source[i] !== ']') {
    let ch = source[i] ?? '';
    if (ch === '\\') {
      const next = source[i + 1] ?? '';
      i += 2;
      if (next === 'w') [...WORD].forEach((c) => set.add(c));
      else if (next === 'd') [...DIGITS].forEach((c) => set.add(c));
      else if (next === 's') [...SPACE].forEach((c) => set.add(c));
      else if ('WDSpPu'.includes(next)) return null;
      else set.add(next === 'n' ? '\n' : next === 't' ? '\t' : next);
      previous = next.length === 1 && !'wds'.includes(next) ? next : null;
      continue;
    }
    if (ch === '-' && previous !== null && source[i + 1] !== undefined && source[i + 1] !== ']') {
      ch = source[i + 1] ?? '';
      addRange(set, previous, ch);
      previous = null;
      i += 2;
      continue;
    }
    set.add(ch);
    previous = ch;
    i += 1;
  }
  if (source[i] !== ']') return null;
  return { set, negated, end: i + 1 };
}

/**
 * What a pattern can let through: the union of every character it can match, and whether it is
 * anchored at both ends (so the whole input is checked). Null chars means "anything".
 */
export function analysePattern(source: string): { anchored: boolean; chars: CharSet } {
  const anchored =
    source.startsWith('^') && (source.endsWith('$') || source.endsWith('\\z')) && !source.endsWith('\\$');
  const chars = new Set<string>();
  let i = 0;
  let any = false;
  while (i < source.length) {
    const ch = source[i] ?? '';
    if (ch === '\\') {
      const next = source[i + 1] ?? '';
      if (next === 'w') [...WORD].forEach((c) => chars.add(c));
      else if (next === 'd') [...DIGITS].forEach((c) => chars.add(c));
      else if (next === 's') [...SPACE].forEach((c) => chars.add(c));
      else if ('WDSpPubB'.includes(next)) any = any || !'bB'.includes(next);
      else chars.add(next);
      i += 2;
      continue;
    }
    if (ch === '[') {
      const parsed = parseClass(source, i + 1);
      if (parsed === null || parsed.negated) any = true;
      else parsed.set.forEach((c) => chars.add(c));
      i = parsed === null ? source.length : parsed.end;
      continue;
    }
    if (ch === '.') any = true;
    else if (ch === '(' && source[i + 1] === '?') {
      // Lookarounds and non-capturing groups: skip the group marker, keep scanning its contents.
      i += 3;
      continue;
    } else if (!'^$|()*+?{},0123456789'.includes(ch) || (/[0-9,]/.test(ch) && !/\{[0-9,]*$/.test(source.slice(0, i)))) {
      chars.add(ch);
    }
    i += 1;
  }
  return { anchored, chars: any ? null : chars };
}

const DANGEROUS: Readonly<Record<Exclude<CheckKind, 'business' | 'mass-assignment' | 'nosql'>, string>> = {
  sql: `'"\`;\\ \t\n()=`,
  command: ` \t\n;|&$\`'"<>(){}[]*?!\\~`,
  code: ` \t\n;()'"\`+[]{}=.,:<>!&|\\/`,
  path: '/\\\0',
  redirect: '/\\:@',
  xss: `<>"'\``,
  // A value that cannot hold a scheme, a host separator or a path cannot move a request elsewhere.
  ssrf: '/\\:@.%?#',
};

/** The sink kinds a value is clean for once every character of it is in `chars`. */
export function cleanMaskForChars(chars: ReadonlySet<string>): number {
  const kinds: CheckKind[] = ['business', 'mass-assignment', 'nosql'];
  for (const [kind, dangerous] of Object.entries(DANGEROUS) as [keyof typeof DANGEROUS, string][]) {
    if (![...dangerous].some((c) => chars.has(c))) kinds.push(kind);
  }
  return maskOf(kinds);
}

/** The mask a successful `re.test(x)` gives x: only anchored patterns vouch for the whole value. */
export function testGuardMask(source: string): number {
  const { anchored, chars } = analysePattern(source);
  if (!anchored || chars === null) return 0;
  return cleanMaskForChars(chars);
}

/** `x.replace(/[^a-z0-9]/g, '')`: the kinds the result is clean for (only what the class keeps survives). */
export function replaceSanitiserMask(source: string, flags: string, replacement: string | null): number {
  if (!flags.includes('g')) return 0;
  const negatedClass = /^\[\^(.*)\]\+?$/.exec(source);
  if (negatedClass !== null && replacement !== null) {
    const parsed = parseClass(`^${negatedClass[1] ?? ''}]`, 0);
    if (parsed === null) return 0;
    const kept = new Set([...parsed.set, ...replacement]);
    return cleanMaskForChars(kept);
  }
  const positiveClass = /^\[([^\]^][^\]]*)\]\+?$/.exec(source);
  if (positiveClass !== null) {
    const parsed = parseClass(`${positiveClass[1] ?? ''}]`, 0);
    if (parsed === null) return 0;
    const removed = parsed.set;
    const kinds: CheckKind[] = [];
    if ((['<', '>'].every((c) => removed.has(c)) || removed.has('<')) && !(replacement ?? '').includes('<'))
      kinds.push('xss');
    return maskOf(kinds);
  }
  // Quote doubling: `.replace(/'/g, "''")` keeps a value inside an SQL string literal.
  if (source === "'" && (replacement === "''" || replacement === "\\'")) return maskOf(['sql']);
  // Entity escaping one character at a time: `.replace(/</g, '&lt;')`.
  if ((source === '<' || source === '>') && replacement !== null && replacement.startsWith('&')) return maskOf(['xss']);
  return 0;
}
