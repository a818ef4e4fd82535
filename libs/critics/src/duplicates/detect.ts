import ts from 'typescript';
import { type BodyRange, type ShapeUnit, syntaxFacts } from './syntax.js';

/**
 * A file as the duplicate detector sees it, one char code per token (compact in memory and in the
 * cache, and compared with charCodeAt): normalised kinds, the line of each token, and identifiers.
 */
export interface TokenStream {
  /** Normalised kinds + KIND_OFFSET: identifiers, strings, numbers and regexes each collapse to one kind. */
  readonly kinds: string;
  /** Tokens on each line (line 1 first), + CODE_OFFSET: far shorter than one code per token. */
  readonly lines: string;
  /** CODE_OFFSET + 1 + index into `names` for identifier tokens, CODE_OFFSET otherwise (renaming-consistency check). */
  readonly idents: string;
  /** A short hash of each identifier name (by index), to tell a verbatim copy from a renamed one. */
  readonly names: string;
  /** CODE_OFFSET + 1 + a short hash of the text of string and number literals, CODE_OFFSET otherwise (same shape, other data?). */
  readonly literals: string;
  /** CODE_OFFSET + the id of the innermost function body holding each token (CODE_OFFSET: none). */
  readonly bodies: string;
  /** Type-only declarations whose shape may repeat (reported once per family, not as clones). */
  readonly shapes: readonly ShapeUnit[];
}

/**
 * Char codes start above 0x100 so the cache's JSON holds them as plain UTF-8 (no \\u escapes for
 * control characters, quotes or backslashes), and stay below the surrogate range.
 */
const KIND_OFFSET = 0x110;
const CODE_OFFSET = 0x100;
const MAX_CODE = 0xd7ff;
function packCodes(values: readonly number[]): string {
  let out = '';
  for (let i = 0; i < values.length; i += 8192) out += String.fromCharCode(...values.slice(i, i + 8192));
  return out;
}

const ID = -1;
/** Member names get kinds of their own, above every SyntaxKind. */
const MEMBER_BASE = 1000;

function memberCode(name: string): number {
  let hash = 5381;
  for (let i = 0; i < name.length; i += 1) hash = ((hash * 33) ^ name.charCodeAt(i)) >>> 0;
  return hash % 0x4000;
}
/** A literal's code: above CODE_OFFSET (which marks "not a literal"), below the surrogates. */
function literalCode(text: string): number {
  return CODE_OFFSET + 1 + (memberCode(text) % (MAX_CODE - CODE_OFFSET - 1));
}
const STR = -2;
const NUM = -3;
const RE = -4;

const EXPRESSION_END = new Set<ts.SyntaxKind>([
  ts.SyntaxKind.Identifier,
  ts.SyntaxKind.PrivateIdentifier,
  ts.SyntaxKind.ThisKeyword,
  ts.SyntaxKind.SuperKeyword,
  ts.SyntaxKind.TrueKeyword,
  ts.SyntaxKind.FalseKeyword,
  ts.SyntaxKind.NullKeyword,
  ts.SyntaxKind.NumericLiteral,
  ts.SyntaxKind.BigIntLiteral,
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateTail,
  ts.SyntaxKind.RegularExpressionLiteral,
  ts.SyntaxKind.CloseParenToken,
  ts.SyntaxKind.CloseBracketToken,
  ts.SyntaxKind.CloseBraceToken,
  ts.SyntaxKind.PlusPlusToken,
  ts.SyntaxKind.MinusMinusToken,
]);

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

/**
 * Tokenises a file with the TypeScript scanner. Comments and whitespace are dropped, import
 * statements skipped (every file has them), type-only text dropped (interfaces, type aliases,
 * overload signatures, annotations, fields declared with a type only — what a language makes
 * authors repeat is not copied logic), and identifiers/literals normalised, so a copy with
 * renamed variables or changed strings still matches (a type-2 clone). A parse of the file
 * (syntax.ts) says which text is type-only and which function body each token is in.
 */
export function tokenize(file: string, text: string): TokenStream {
  const variant = /\.(tsx|jsx)$/.test(file) ? ts.LanguageVariant.JSX : ts.LanguageVariant.Standard;
  const facts = syntaxFacts(file, text);
  let rangeIndex = 0;
  let bodyIndex = 0;
  const open: BodyRange[] = [];
  const bodyIds: number[] = [];
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, variant, text);
  const starts = lineStarts(text);
  const kinds: number[] = [];
  const lines: number[] = [];
  const idents: number[] = [];
  const literals: number[] = [];
  const names: string[] = [];
  const nameIds = new Map<string, number>();
  const braces: ('brace' | 'template')[] = [];
  let lineIndex = 0;
  let previous: ts.SyntaxKind = ts.SyntaxKind.Unknown;
  let skippingImport = false;
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.OpenBraceToken) braces.push('brace');
    else if (kind === ts.SyntaxKind.TemplateHead) braces.push('template');
    else if (kind === ts.SyntaxKind.CloseBraceToken) {
      if (braces.at(-1) === 'template') {
        kind = scanner.reScanTemplateToken(false);
        if (kind === ts.SyntaxKind.TemplateTail) braces.pop();
      } else {
        braces.pop();
      }
    } else if (
      (kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) &&
      !EXPRESSION_END.has(previous)
    ) {
      kind = scanner.reScanSlashToken();
    }
    const start = scanner.getTokenStart();
    while (lineIndex + 1 < starts.length && (starts[lineIndex + 1] ?? Infinity) <= start) lineIndex += 1;

    if (kind === ts.SyntaxKind.ImportKeyword && previous !== ts.SyntaxKind.DotToken) {
      const next = text.slice(scanner.getTokenEnd()).trimStart()[0];
      if (next !== '(' && next !== '.') skippingImport = true;
    }
    const afterDot = previous === ts.SyntaxKind.DotToken || previous === ts.SyntaxKind.QuestionDotToken;
    previous = kind;
    if (skippingImport) {
      if (kind === ts.SyntaxKind.StringLiteral) skippingImport = false;
      continue;
    }
    while (rangeIndex < facts.typeRanges.length && (facts.typeRanges[rangeIndex]?.end ?? 0) <= start) rangeIndex += 1;
    if ((facts.typeRanges[rangeIndex]?.start ?? Infinity) <= start) continue;
    while (bodyIndex < facts.bodies.length && (facts.bodies[bodyIndex]?.start ?? Infinity) <= start) {
      const body = facts.bodies[bodyIndex];
      if (body !== undefined) open.push(body);
      bodyIndex += 1;
    }
    while (open.length > 0 && (open.at(-1)?.end ?? 0) <= start) open.pop();
    let normalised: number = kind;
    let ident = -1;
    let literal = CODE_OFFSET;
    if (
      (kind === ts.SyntaxKind.Identifier || kind === ts.SyntaxKind.PrivateIdentifier) &&
      (afterDot || kind === ts.SyntaxKind.PrivateIdentifier)
    ) {
      // Member names stay as they are (`.length`, `.quantity`): a renamed copy keeps them, while
      // unrelated code that merely has the same shape rarely does.
      normalised = MEMBER_BASE + memberCode(scanner.getTokenValue());
    } else if (kind === ts.SyntaxKind.Identifier) {
      normalised = ID;
      const name = scanner.getTokenValue();
      ident = nameIds.get(name) ?? names.length;
      if (ident === names.length) {
        nameIds.set(name, ident);
        names.push(name);
      }
    } else if (
      kind === ts.SyntaxKind.StringLiteral ||
      kind === ts.SyntaxKind.NoSubstitutionTemplateLiteral ||
      kind === ts.SyntaxKind.TemplateHead ||
      kind === ts.SyntaxKind.TemplateMiddle ||
      kind === ts.SyntaxKind.TemplateTail ||
      kind === ts.SyntaxKind.JsxText
    ) {
      normalised = STR;
      literal = literalCode(scanner.getTokenValue());
    } else if (kind === ts.SyntaxKind.NumericLiteral || kind === ts.SyntaxKind.BigIntLiteral) {
      normalised = NUM;
      literal = literalCode(scanner.getTokenValue());
    } else if (kind === ts.SyntaxKind.RegularExpressionLiteral) {
      normalised = RE;
    } else if (kind === ts.SyntaxKind.SemicolonToken) {
      // Optional semicolons must not break a match between two styles of the same code.
      continue;
    }
    kinds.push(normalised + KIND_OFFSET);
    lines.push(lineIndex + 1);
    idents.push(Math.min(MAX_CODE, ident + 1 + CODE_OFFSET));
    literals.push(literal);
    bodyIds.push(CODE_OFFSET + ((open.at(-1)?.id ?? 0) % (MAX_CODE - CODE_OFFSET)));
  }
  const perLine: number[] = [];
  for (const line of lines) {
    while (perLine.length < line) perLine.push(0);
    perLine[line - 1] = (perLine[line - 1] ?? 0) + 1;
  }
  return {
    kinds: packCodes(kinds),
    lines: packCodes(perLine.map((count) => Math.min(MAX_CODE, count + CODE_OFFSET))),
    idents: packCodes(idents),
    names: packCodes(names.map((name) => CODE_OFFSET + (memberCode(name) % (MAX_CODE - CODE_OFFSET)))),
    literals: packCodes(literals),
    bodies: packCodes(bodyIds),
    shapes: facts.shapes,
  };
}

const lineStartsCache = new WeakMap<TokenStream, Int32Array>();

/** The 1-based line of a token (a prefix sum over the per-line counts, built once per stream). */
function lineOfToken(stream: TokenStream, token: number): number {
  let firsts = lineStartsCache.get(stream);
  if (firsts === undefined) {
    firsts = new Int32Array(stream.lines.length + 1);
    let sum = 0;
    for (let i = 0; i < stream.lines.length; i += 1) {
      firsts[i] = sum;
      sum += stream.lines.charCodeAt(i) - CODE_OFFSET;
    }
    firsts[stream.lines.length] = sum;
    lineStartsCache.set(stream, firsts);
  }
  // The last line whose first token is at or before `token`.
  let low = 0;
  let high = stream.lines.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((firsts[mid] ?? 0) <= token) low = mid;
    else high = mid - 1;
  }
  return low + 1;
}

export interface DetectOptions {
  /** A clone must be at least this many tokens long (jscpd's default is 50). */
  readonly minTokens: number;
  /** …and span at least this many lines on each side (jscpd's default is 5). */
  readonly minLines: number;
  /**
   * Share of identifier pairs that must follow one consistent renaming. TODO(calibration): 0.6
   * keeps renamed copies and drops structurally similar but unrelated code on the corpus.
   */
  readonly minRenamingConsistency: number;
  /** Distinct token kinds a clone must contain (filters data tables and repeated one-liners). TODO(calibration). */
  readonly minDistinctKinds: number;
  /**
   * Same shape, other data: a match whose string and number literals are at least `share` of its
   * names and literals, and differ between the two sides in at least `changed` of them, is a table
   * or a config filled with other values (rule texts, fixtures, option lists), not copied logic.
   * TODO(calibration): 0.3 / 0.6 drop such tables here and keep every clone of the corpus.
   */
  readonly otherData: { readonly share: number; readonly changed: number };
  /**
   * A copy with renamed identifiers needs a body of statements: at least this many of its tokens
   * inside one function body on each side. Runs of one-line members (builder methods, delegating
   * wrappers) that a library repeats on purpose do not qualify; a verbatim copy needs no body.
   * TODO(calibration): 50 (the clone minimum) keeps every renamed clone of the corpus and drops
   * kysely's same-shaped builder classes; settle on more libraries a maintainer has judged.
   */
  readonly minBodyTokens: number;
}

export const DEFAULT_DETECT_OPTIONS: DetectOptions = {
  minTokens: 50,
  minLines: 5,
  minRenamingConsistency: 0.6,
  minDistinctKinds: 12,
  otherData: { share: 0.3, changed: 0.6 },
  minBodyTokens: 50,
};

export interface Clone {
  readonly a: { readonly file: string; readonly startLine: number; readonly endLine: number };
  readonly b: { readonly file: string; readonly startLine: number; readonly endLine: number };
  readonly tokens: number;
  /** Lines holding code on the shorter side (comment-only lines do not count). */
  readonly lines: number;
  /** Share of identical identifier names (1 for a verbatim copy). */
  readonly identical: number;
}

// Seeds are shorter than the minimum clone so that sampling one seed in four (by hash) still
// finds every clone of the minimum size with high probability; matches are extended afterwards.
const SEED = 30;
/** TODO(calibration): a seed window seen in more places than this is treated as boilerplate. */
const MAX_BUCKET = 48;
/** Positions are encoded as file index × stride + token index. */
const FILE_STRIDE = 16_777_216;
const BASE = 1_000_003;

/**
 * Finds clones among the given files: pairs of token ranges that are equal after normalisation,
 * at least minTokens long, spanning minLines lines, with a consistent renaming. With `focus`, only
 * clones with at least one side in a focus file are looked for (an incremental review: clones
 * between unchanged files come from the cache). Deterministic: the result is sorted.
 */
export function detectClones(
  streams: ReadonlyMap<string, TokenStream>,
  options: DetectOptions = DEFAULT_DETECT_OPTIONS,
  focus?: ReadonlySet<string>,
): Clone[] {
  const files = [...streams.keys()];
  // Rolling polynomial hash in 32-bit integer arithmetic (Math.imul wraps, so adding the incoming
  // token and removing the outgoing one stay exact modulo 2^32).
  let power = 1;
  for (let i = 0; i < SEED; i += 1) power = Math.imul(power, BASE);
  const eachSeed = (fileIndex: number, visit: (hash: number, position: number) => void): void => {
    const kinds = streams.get(files[fileIndex] ?? '')?.kinds ?? '';
    if (kinds.length < SEED) return;
    let hash = 0;
    const base = fileIndex * FILE_STRIDE - SEED + 1;
    for (let i = 0; i < kinds.length; i += 1) {
      hash = (Math.imul(hash, BASE) + kinds.charCodeAt(i)) | 0;
      if (i >= SEED) hash = (hash - Math.imul(kinds.charCodeAt(i - SEED), power)) | 0;
      if (i >= SEED - 1 && ((hash ^ (hash >>> 15)) & 3) === 0) visit(hash, base + i);
    }
  };
  const focusFiles =
    focus === undefined ? null : new Set(files.map((f, i) => (focus.has(f) ? i : -1)).filter((i) => i >= 0));
  // Every file's seeds count towards a bucket's size, whatever the focus: pairing then depends only
  // on the pair, so an incremental run finds exactly the clones a cold run would (for the focus).
  const index = new Map<number, number[]>();
  const sizes = new Map<number, number>();
  if (focusFiles === null) {
    files.forEach((_f, i) =>
      eachSeed(i, (hash, position) => {
        const bucket = index.get(hash);
        if (bucket === undefined) index.set(hash, [position]);
        else bucket.push(position);
      }),
    );
    for (const [hash, bucket] of index) sizes.set(hash, bucket.length);
  } else {
    for (const i of focusFiles) {
      eachSeed(i, (hash, position) => {
        const bucket = index.get(hash);
        if (bucket === undefined) index.set(hash, [position]);
        else bucket.push(position);
      });
    }
    files.forEach((_f, i) =>
      eachSeed(i, (hash) => {
        if (index.has(hash)) sizes.set(hash, (sizes.get(hash) ?? 0) + 1);
      }),
    );
  }
  const pairs: [number, number][] = [];
  if (focusFiles === null) {
    for (const [hash, bucket] of index) {
      // A window repeated in more places than this is boilerplate, not a copy of something.
      if (bucket.length < 2 || (sizes.get(hash) ?? 0) > MAX_BUCKET) continue;
      for (let x = 0; x < bucket.length; x += 1)
        for (let y = x + 1; y < bucket.length; y += 1) pairs.push([bucket[x] ?? 0, bucket[y] ?? 0]);
    }
  } else {
    // Focus seeds against every file's seeds (focus-focus pairs once, from the lower position).
    files.forEach((_f, i) =>
      eachSeed(i, (hash, position) => {
        const bucket = index.get(hash);
        if (bucket === undefined || (sizes.get(hash) ?? 0) > MAX_BUCKET) return;
        for (const other of bucket) {
          if (other === position || (focusFiles.has(i) && other < position)) continue;
          pairs.push([position, other]);
        }
      }),
    );
  }

  const seen = new Set<string>();
  const clones: Clone[] = [];
  const covered = new Map<string, [number, number][]>();
  for (const [x, y] of pairs) {
    const clone = extend(x, y, files, streams, options, covered);
    if (clone === null) continue;
    const key = `${clone.a.file}:${clone.a.startLine}:${clone.b.file}:${clone.b.startLine}:${clone.tokens}`;
    if (seen.has(key)) continue;
    seen.add(key);
    clones.push(clone);
  }
  return sortClones(clones);
}

/** Sorts clones by their places (a stable order for findings). */
export function sortClones(clones: readonly Clone[]): Clone[] {
  return [...clones].sort(
    (p, q) =>
      p.a.file.localeCompare(q.a.file) ||
      p.a.startLine - q.a.startLine ||
      p.b.file.localeCompare(q.b.file) ||
      p.b.startLine - q.b.startLine ||
      p.tokens - q.tokens,
  );
}

function extend(
  positionA: number,
  positionB: number,
  files: readonly string[],
  streams: ReadonlyMap<string, TokenStream>,
  options: DetectOptions,
  covered: Map<string, [number, number][]>,
): Clone | null {
  let fa = Math.floor(positionA / FILE_STRIDE);
  let fb = Math.floor(positionB / FILE_STRIDE);
  let pa = positionA % FILE_STRIDE;
  let pb = positionB % FILE_STRIDE;
  if (fa > fb || (fa === fb && pa > pb)) [fa, fb, pa, pb] = [fb, fa, pb, pa];
  // Seeds along one clone all extend to the same match: extend each diagonal stretch once.
  const diagonal = `${fa}:${fb}:${pb - pa}`;
  const stretches = covered.get(diagonal);
  if (stretches?.some(([from, to]) => from <= pa && pa < to) === true) return null;
  const fileA = files[fa];
  const fileB = files[fb];
  const a = fileA === undefined ? undefined : streams.get(fileA);
  const b = fileB === undefined ? undefined : streams.get(fileB);
  if (a === undefined || b === undefined || fileA === undefined || fileB === undefined) return null;
  for (let i = 0; i < SEED; i += 1) if (a.kinds.charCodeAt(pa + i) !== b.kinds.charCodeAt(pb + i)) return null;
  let start = 0;
  while (
    pa - start - 1 >= 0 &&
    pb - start - 1 >= 0 &&
    a.kinds.charCodeAt(pa - start - 1) === b.kinds.charCodeAt(pb - start - 1)
  )
    start += 1;
  let length = SEED + start;
  const sa = pa - start;
  const sb = pb - start;
  while (
    sa + length < a.kinds.length &&
    sb + length < b.kinds.length &&
    a.kinds.charCodeAt(sa + length) === b.kinds.charCodeAt(sb + length)
  )
    length += 1;
  covered.set(diagonal, [...(stretches ?? []), [sa, sa + length]]);
  // A region overlapping its own copy is a repetition inside one place, not a duplicate.
  if (fa === fb && sa + length > sb) length = sb - sa;
  if (length < options.minTokens) return null;
  const startA = lineOfToken(a, sa);
  const endA = lineOfToken(a, sa + length - 1);
  const startB = lineOfToken(b, sb);
  const endB = lineOfToken(b, sb + length - 1);
  if (endA - startA + 1 < options.minLines || endB - startB + 1 < options.minLines) return null;
  // Lines that hold code: a clone spread over doc comments is as short as its code.
  const lines = Math.min(codeLines(a, sa, length), codeLines(b, sb, length));
  if (lines < options.minLines) return null;
  const distinct = new Set(a.kinds.slice(sa, sa + length)).size;
  if (distinct < options.minDistinctKinds) return null;
  const forward = new Map<number, number>();
  const backward = new Map<number, number>();
  let pairs = 0;
  let consistent = 0;
  let identical = 0;
  for (let i = 0; i < length; i += 1) {
    const ia = a.idents.charCodeAt(sa + i) - CODE_OFFSET - 1;
    const ib = b.idents.charCodeAt(sb + i) - CODE_OFFSET - 1;
    if (ia < 0 || ib < 0) continue;
    pairs += 1;
    if (a.names.charCodeAt(ia) === b.names.charCodeAt(ib)) identical += 1;
    const fwd = forward.get(ia);
    const bwd = backward.get(ib);
    if ((fwd === undefined || fwd === ib) && (bwd === undefined || bwd === ia)) consistent += 1;
    if (fwd === undefined) forward.set(ia, ib);
    if (bwd === undefined) backward.set(ib, ia);
  }
  if (pairs > 0 && consistent / pairs < options.minRenamingConsistency) return null;
  let literals = 0;
  let changed = 0;
  for (let i = 0; i < length; i += 1) {
    const la = a.literals.charCodeAt(sa + i);
    if (la === CODE_OFFSET) continue;
    literals += 1;
    if (la !== b.literals.charCodeAt(sb + i)) changed += 1;
  }
  if (
    literals > 0 &&
    literals / (literals + pairs) >= options.otherData.share &&
    changed / literals >= options.otherData.changed
  )
    return null;
  const identicalShare = pairs === 0 ? 1 : identical / pairs;
  if (identicalShare < 0.99 && Math.min(largestBody(a, sa, length), largestBody(b, sb, length)) < options.minBodyTokens)
    return null;
  return {
    a: { file: fileA, startLine: startA, endLine: endA },
    b: { file: fileB, startLine: startB, endLine: endB },
    tokens: length,
    lines,
    identical: identicalShare,
  };
}

/** How many distinct lines the tokens [start, start + length) are on. */
function codeLines(stream: TokenStream, start: number, length: number): number {
  let count = 0;
  let last = -1;
  for (let i = start; i < start + length; i += 1) {
    const line = lineOfToken(stream, i);
    if (line !== last) count += 1;
    last = line;
  }
  return count;
}

/** The most tokens of [start, start + length) that lie in one function body. */
function largestBody(stream: TokenStream, start: number, length: number): number {
  const counts = new Map<number, number>();
  let best = 0;
  for (let i = start; i < start + length; i += 1) {
    const body = stream.bodies.charCodeAt(i) - CODE_OFFSET;
    if (body <= 0) continue;
    const count = (counts.get(body) ?? 0) + 1;
    counts.set(body, count);
    if (count > best) best = count;
  }
  return best;
}
