import ts from 'typescript';

/** A file as the duplicate detector sees it: normalised token kinds with their lines and identifiers. */
export interface TokenStream {
  /** Normalised kinds: identifiers, strings, numbers and regexes each collapse to one kind. */
  readonly kinds: readonly number[];
  readonly lines: readonly number[];
  /** Index into `names` for identifier tokens, -1 otherwise (for the renaming-consistency check). */
  readonly idents: readonly number[];
  readonly names: readonly string[];
}

const ID = -1;
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
 * Tokenises a file with the TypeScript scanner (no parse: fast, tolerant of syntax errors).
 * Comments and whitespace are dropped, import statements skipped (every file has them), and
 * identifiers/literals normalised, so a copy with renamed variables or changed strings still
 * matches (a type-2 clone).
 */
export function tokenize(file: string, text: string): TokenStream {
  const variant = /\.(tsx|jsx)$/.test(file) ? ts.LanguageVariant.JSX : ts.LanguageVariant.Standard;
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, variant, text);
  const starts = lineStarts(text);
  const kinds: number[] = [];
  const lines: number[] = [];
  const idents: number[] = [];
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
    } else if ((kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) && !EXPRESSION_END.has(previous)) {
      kind = scanner.reScanSlashToken();
    }
    const start = scanner.getTokenStart();
    while (lineIndex + 1 < starts.length && (starts[lineIndex + 1] ?? Infinity) <= start) lineIndex += 1;

    if (kind === ts.SyntaxKind.ImportKeyword && previous !== ts.SyntaxKind.DotToken) {
      const next = text.slice(scanner.getTokenEnd()).trimStart()[0];
      if (next !== '(' && next !== '.') skippingImport = true;
    }
    previous = kind;
    if (skippingImport) {
      if (kind === ts.SyntaxKind.StringLiteral) skippingImport = false;
      continue;
    }
    let normalised: number = kind;
    let ident = -1;
    if (kind === ts.SyntaxKind.Identifier || kind === ts.SyntaxKind.PrivateIdentifier) {
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
    } else if (kind === ts.SyntaxKind.NumericLiteral || kind === ts.SyntaxKind.BigIntLiteral) {
      normalised = NUM;
    } else if (kind === ts.SyntaxKind.RegularExpressionLiteral) {
      normalised = RE;
    } else if (kind === ts.SyntaxKind.SemicolonToken) {
      // Optional semicolons must not break a match between two styles of the same code.
      continue;
    }
    kinds.push(normalised);
    lines.push(lineIndex + 1);
    idents.push(ident);
  }
  return { kinds, lines, idents, names };
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
}

export const DEFAULT_DETECT_OPTIONS: DetectOptions = { minTokens: 50, minLines: 5, minRenamingConsistency: 0.6, minDistinctKinds: 12 };

export interface Clone {
  readonly a: { readonly file: string; readonly startLine: number; readonly endLine: number };
  readonly b: { readonly file: string; readonly startLine: number; readonly endLine: number };
  readonly tokens: number;
  /** Share of identical identifier names (1 for a verbatim copy). */
  readonly identical: number;
}

// Seeds are shorter than the minimum clone so that sampling one seed in four (by hash) still
// finds every clone of the minimum size with high probability; matches are extended afterwards.
const SEED = 30;
const BASE = 257;
const MOD = 2_147_483_647;

function code(kind: number): number {
  return kind + 16;
}

/**
 * Finds clones among the given files: pairs of token ranges that are equal after normalisation,
 * at least minTokens long, spanning minLines lines, with a consistent renaming. Deterministic:
 * files are processed in the order given and the result is sorted.
 */
export function detectClones(streams: ReadonlyMap<string, TokenStream>, options: DetectOptions = DEFAULT_DETECT_OPTIONS): Clone[] {
  const files = [...streams.keys()];
  const index = new Map<number, number[]>();
  let power = 1;
  for (let i = 0; i < SEED - 1; i += 1) power = (power * BASE) % MOD;
  files.forEach((file, fileIndex) => {
    const kinds = streams.get(file)?.kinds ?? [];
    if (kinds.length < SEED) return;
    let hash = 0;
    for (let i = 0; i < kinds.length; i += 1) {
      if (i >= SEED) hash = (hash - ((code(kinds[i - SEED] ?? 0) * power) % MOD) + MOD) % MOD;
      hash = (hash * BASE + code(kinds[i] ?? 0)) % MOD;
      if (i >= SEED - 1 && hash % 4 === 0) {
        const bucket = index.get(hash);
        const position = fileIndex * 16_777_216 + (i - SEED + 1);
        if (bucket === undefined) index.set(hash, [position]);
        else if (bucket.length < 64) bucket.push(position);
      }
    }
  });

  const seen = new Set<string>();
  const clones: Clone[] = [];
  for (const bucket of index.values()) {
    if (bucket.length < 2) continue;
    for (let x = 0; x < bucket.length; x += 1) {
      for (let y = x + 1; y < bucket.length && y <= x + 8; y += 1) {
        const clone = extend(bucket[x] ?? 0, bucket[y] ?? 0, files, streams, options);
        if (clone === null) continue;
        const key = `${clone.a.file}:${clone.a.startLine}:${clone.b.file}:${clone.b.startLine}:${clone.tokens}`;
        if (seen.has(key)) continue;
        seen.add(key);
        clones.push(clone);
      }
    }
  }
  return clones.sort((p, q) => p.a.file.localeCompare(q.a.file) || p.a.startLine - q.a.startLine || p.b.file.localeCompare(q.b.file) || p.b.startLine - q.b.startLine);
}

function extend(positionA: number, positionB: number, files: readonly string[], streams: ReadonlyMap<string, TokenStream>, options: DetectOptions): Clone | null {
  let fa = Math.floor(positionA / 16_777_216);
  let fb = Math.floor(positionB / 16_777_216);
  let pa = positionA % 16_777_216;
  let pb = positionB % 16_777_216;
  if (fa > fb || (fa === fb && pa > pb)) [fa, fb, pa, pb] = [fb, fa, pb, pa];
  const fileA = files[fa];
  const fileB = files[fb];
  const a = fileA === undefined ? undefined : streams.get(fileA);
  const b = fileB === undefined ? undefined : streams.get(fileB);
  if (a === undefined || b === undefined || fileA === undefined || fileB === undefined) return null;
  for (let i = 0; i < SEED; i += 1) if (a.kinds[pa + i] !== b.kinds[pb + i]) return null;
  let start = 0;
  while (pa - start - 1 >= 0 && pb - start - 1 >= 0 && a.kinds[pa - start - 1] === b.kinds[pb - start - 1]) start += 1;
  let length = SEED + start;
  const sa = pa - start;
  const sb = pb - start;
  while (sa + length < a.kinds.length && sb + length < b.kinds.length && a.kinds[sa + length] === b.kinds[sb + length]) length += 1;
  // A region overlapping its own copy is a repetition inside one place, not a duplicate.
  if (fa === fb && sa + length > sb) length = sb - sa;
  if (length < options.minTokens) return null;
  const startA = a.lines[sa] ?? 1;
  const endA = a.lines[sa + length - 1] ?? startA;
  const startB = b.lines[sb] ?? 1;
  const endB = b.lines[sb + length - 1] ?? startB;
  if (endA - startA + 1 < options.minLines || endB - startB + 1 < options.minLines) return null;
  const distinct = new Set(a.kinds.slice(sa, sa + length)).size;
  if (distinct < options.minDistinctKinds) return null;
  const forward = new Map<number, number>();
  const backward = new Map<number, number>();
  let pairs = 0;
  let consistent = 0;
  let identical = 0;
  for (let i = 0; i < length; i += 1) {
    const ia = a.idents[sa + i] ?? -1;
    const ib = b.idents[sb + i] ?? -1;
    if (ia < 0 || ib < 0) continue;
    pairs += 1;
    if (a.names[ia] === b.names[ib]) identical += 1;
    const fwd = forward.get(ia);
    const bwd = backward.get(ib);
    if ((fwd === undefined || fwd === ib) && (bwd === undefined || bwd === ia)) consistent += 1;
    if (fwd === undefined) forward.set(ia, ib);
    if (bwd === undefined) backward.set(ib, ia);
  }
  if (pairs > 0 && consistent / pairs < options.minRenamingConsistency) return null;
  return {
    a: { file: fileA, startLine: startA, endLine: endA },
    b: { file: fileB, startLine: startB, endLine: endB },
    tokens: length,
    identical: pairs === 0 ? 1 : identical / pairs,
  };
}
