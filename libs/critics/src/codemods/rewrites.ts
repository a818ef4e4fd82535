import { parse as legacyParse } from 'node:url';
import ts from 'typescript';

// The deprecations the compiler-linter critic reports (typescript-eslint's no-deprecated on the
// declarations of TypeScript's lib and @types/node), each with a rewrite that provably keeps the
// behaviour, or the reason there is none. A rewrite that is safe only for some arguments says so
// for the others: `none`, with why, so no implementer attempt is spent on guessing.

/** One text replacement in a file. */
export interface Edit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** The codemods rloop has, by id (what FindingDraft.autofix_note and the autofix log name). */
export const CODEMOD_IDS = [
  'buffer-constructor',
  'string-substr',
  'util-is',
  'buffer-slice',
  'url-parse-literal',
] as const;
export type CodemodId = (typeof CODEMOD_IDS)[number];

export type Rewrite =
  | {
      readonly kind: 'codemod';
      readonly codemod: CodemodId;
      readonly edits: readonly Edit[];
      readonly note: string;
      readonly touched: readonly string[];
    }
  | { readonly kind: 'none'; readonly note: string };

/** A call (or `new`) of a deprecated declaration, as the type checker resolved it. */
export interface DeprecatedCall {
  readonly call: ts.CallExpression | ts.NewExpression;
  /** The name the call uses (`Buffer` in `new Buffer(1)`, `substr` in `s.substr(1)`): where the critic's finding points. */
  readonly name: ts.Identifier;
  /** The declaration the call resolves to, and the file it is in. */
  readonly declaration: ts.Declaration;
  readonly declarationFile: string;
  readonly checker: ts.TypeChecker;
  readonly sourceFile: ts.SourceFile;
}

interface Codemod {
  readonly id: CodemodId;
  /** Whether the call is this codemod's deprecated API. */
  matches(call: DeprecatedCall): boolean;
  rewrite(call: DeprecatedCall): Rewrite;
}

const NODE_TYPES = /[\\/]@types[\\/]node[\\/](?:ts[0-9.]+[\\/])?/;
const TS_LIB = /[\\/]typescript[\\/]lib[\\/]lib\.[a-z0-9.]+\.d\.ts$/;

function inNodeModule(call: DeprecatedCall, module: string): boolean {
  return new RegExp(`${NODE_TYPES.source}${module.replace('.', '\\.')}\\.d\\.ts$`).test(call.declarationFile);
}

function declarationName(declaration: ts.Declaration): string | null {
  const name = ts.getNameOfDeclaration(declaration);
  return name !== undefined && ts.isIdentifier(name) ? name.text : null;
}

function containerName(declaration: ts.Declaration): string | null {
  const parent = declaration.parent;
  return ts.isInterfaceDeclaration(parent) || ts.isClassDeclaration(parent) ? (parent.name?.text ?? null) : null;
}

function args(call: DeprecatedCall): readonly ts.Expression[] | null {
  const list = call.call.arguments;
  if (list === undefined || list.some((a) => ts.isSpreadElement(a))) return null;
  return list;
}

function text(node: ts.Node, sf: ts.SourceFile): string {
  return node.getText(sf);
}

/** Whether an expression can stand as an operand of `typeof`, `===` or `.` without parentheses. */
function isPrimary(node: ts.Expression): boolean {
  return (
    ts.isIdentifier(node) ||
    ts.isPropertyAccessExpression(node) ||
    ts.isElementAccessExpression(node) ||
    ts.isCallExpression(node) ||
    ts.isParenthesizedExpression(node) ||
    ts.isStringLiteralLike(node) ||
    ts.isNumericLiteral(node) ||
    ts.isArrayLiteralExpression(node) ||
    ts.isObjectLiteralExpression(node) ||
    ts.isTemplateExpression(node) ||
    node.kind === ts.SyntaxKind.ThisKeyword ||
    node.kind === ts.SyntaxKind.NullKeyword ||
    node.kind === ts.SyntaxKind.TrueKeyword ||
    node.kind === ts.SyntaxKind.FalseKeyword
  );
}

function operand(node: ts.Expression, sf: ts.SourceFile): string {
  return isPrimary(node) ? text(node, sf) : `(${text(node, sf)})`;
}

/** Whether an expression is evaluated without side effects, so a rewrite may read it twice. */
function isPlainReference(node: ts.Expression): boolean {
  return (
    ts.isIdentifier(node) ||
    ts.isStringLiteralLike(node) ||
    ts.isNumericLiteral(node) ||
    [
      ts.SyntaxKind.ThisKeyword,
      ts.SyntaxKind.NullKeyword,
      ts.SyntaxKind.TrueKeyword,
      ts.SyntaxKind.FalseKeyword,
    ].includes(node.kind)
  );
}

/** How loosely a replacement binds at its top: a call (never needs parentheses), a comparison, `&&`, `||`. */
type Binding = 'call' | 'comparison' | 'and' | 'or';

/** Whether a replacement of `node` that binds as `binding` must be parenthesised to keep its meaning where it stands. */
function needsParentheses(node: ts.Expression, binding: Binding): boolean {
  if (binding === 'call') return false;
  const parent = node.parent;
  if (
    ts.isParenthesizedExpression(parent) ||
    ts.isExpressionStatement(parent) ||
    ts.isReturnStatement(parent) ||
    ts.isArrayLiteralExpression(parent)
  )
    return false;
  if (
    (ts.isIfStatement(parent) || ts.isWhileStatement(parent) || ts.isDoStatement(parent)) &&
    parent.expression === node
  )
    return false;
  if (ts.isVariableDeclaration(parent) && parent.initializer === node) return false;
  if ((ts.isCallExpression(parent) || ts.isNewExpression(parent)) && parent.arguments?.includes(node) === true)
    return false;
  if (ts.isArrowFunction(parent) && parent.body === node) return false;
  if (ts.isPropertyAssignment(parent) && parent.initializer === node) return false;
  if (ts.isTemplateSpan(parent)) return false;
  // Every replacement binds tighter than `?:`.
  if (ts.isConditionalExpression(parent)) return false;
  if (ts.isBinaryExpression(parent)) {
    const op = parent.operatorToken.kind;
    // `&&` and `||` are associative in value, and comparisons bind tighter than both; `??` may not mix with them.
    if (op === ts.SyntaxKind.BarBarToken) return false;
    if (op === ts.SyntaxKind.AmpersandAmpersandToken) return binding === 'or';
    if (op === ts.SyntaxKind.QuestionQuestionToken || op === ts.SyntaxKind.CommaToken) return binding !== 'comparison';
    if (op >= ts.SyntaxKind.FirstAssignment && op <= ts.SyntaxKind.LastAssignment && parent.right === node)
      return false;
  }
  return true;
}

function replaceCall(call: DeprecatedCall, replacement: string, binding: Binding): Edit {
  const node = call.call;
  return {
    start: node.getStart(call.sourceFile),
    end: node.getEnd(),
    text: needsParentheses(node, binding) ? `(${replacement})` : replacement,
  };
}

function renameCallee(call: DeprecatedCall, name: string): Edit {
  return { start: call.name.getStart(call.sourceFile), end: call.name.getEnd(), text: name };
}

/** The binding a callee reads the module through (`util` in `util.isArray`, `isArray` imported alone), for cleaning up unused imports. */
function calleeBinding(call: DeprecatedCall): string[] {
  const callee = call.call.expression;
  if (ts.isIdentifier(callee)) return [callee.text];
  if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression)) return [callee.expression.text];
  return [];
}

function typeOfArgument(call: DeprecatedCall, arg: ts.Expression): 'number' | 'other' | 'unknown' {
  const type = call.checker.getTypeAtLocation(arg);
  const parts = type.isUnion() ? type.types : [type];
  if (parts.some((t) => (t.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown | ts.TypeFlags.TypeParameter)) !== 0))
    return 'unknown';
  const numbers = parts.filter((t) => (t.flags & ts.TypeFlags.NumberLike) !== 0).length;
  if (numbers === parts.length) return 'number';
  return numbers === 0 ? 'other' : 'unknown';
}

function isStringTyped(call: DeprecatedCall, arg: ts.Expression): boolean {
  const type = call.checker.getTypeAtLocation(arg);
  return (type.isUnion() ? type.types : [type]).every((t) => (t.flags & ts.TypeFlags.StringLike) !== 0);
}

// ── new Buffer(…) → Buffer.alloc / Buffer.from ─────────────────────────────────────────────────

const bufferConstructor: Codemod = {
  id: 'buffer-constructor',
  matches: (call) =>
    ts.isNewExpression(call.call) &&
    call.name.text === 'Buffer' &&
    containerName(call.declaration) === 'BufferConstructor' &&
    NODE_TYPES.test(call.declarationFile),
  rewrite(call) {
    const list = args(call);
    const first = list?.[0];
    if (list === null || first === undefined || !ts.isIdentifier(call.call.expression))
      return {
        kind: 'none',
        note: 'new Buffer with spread, no or computed arguments: which of Buffer.alloc and Buffer.from keeps it cannot be told here',
      };
    const kind = typeOfArgument(call, first);
    const start = call.call.getStart(call.sourceFile);
    const head = (method: string): Edit => ({ start, end: call.call.expression.getEnd(), text: `Buffer.${method}` });
    // Since Node 8 `new Buffer(size)` is zero-filled, as Buffer.alloc(size) is.
    if (kind === 'number' && list.length === 1)
      return {
        kind: 'codemod',
        codemod: 'buffer-constructor',
        edits: [head('alloc')],
        note: 'new Buffer(size) → Buffer.alloc(size) (both zero-filled)',
        touched: [],
      };
    if (kind === 'other')
      return {
        kind: 'codemod',
        codemod: 'buffer-constructor',
        edits: [head('from')],
        note: 'new Buffer(string | array | arrayBuffer | buffer, …) → Buffer.from(…) (same bytes, same sharing of an ArrayBuffer)',
        touched: [],
      };
    // Node's Buffer(arg, encoding) is Buffer.from(arg, encoding) unless arg is a number, which throws ERR_INVALID_ARG_TYPE either way.
    const encoding = list[1];
    if (encoding !== undefined && isStringTyped(call, encoding)) {
      return {
        kind: 'codemod',
        codemod: 'buffer-constructor',
        edits: [head('from')],
        note: 'new Buffer(value, encoding) → Buffer.from(value, encoding) (a number value throws ERR_INVALID_ARG_TYPE either way)',
        touched: [],
      };
    }
    return {
      kind: 'none',
      note: `new Buffer(${text(first, call.sourceFile).slice(0, 60)}): its argument may be a number or not (its type is not known here), and Buffer.alloc and Buffer.from differ`,
    };
  },
};

// ── s.substr(…) → s.slice / s.substring ───────────────────────────────────────────────────────

function nonNegativeInteger(node: ts.Expression | undefined): number | null {
  if (node === undefined || !ts.isNumericLiteral(node)) return null;
  const value = Number(node.text);
  return Number.isSafeInteger(value) && value >= 0 ? value : null;
}

const stringSubstr: Codemod = {
  id: 'string-substr',
  matches: (call) =>
    ts.isCallExpression(call.call) &&
    call.name.text === 'substr' &&
    containerName(call.declaration) === 'String' &&
    TS_LIB.test(call.declarationFile),
  rewrite(call) {
    const list = args(call);
    if (list === null)
      return { kind: 'none', note: 'substr with spread arguments: how many it gets cannot be told here' };
    const [start, length] = list;
    // substr(start) and slice(start) agree for every start, negative (from the end) included.
    if (length === undefined)
      return {
        kind: 'codemod',
        codemod: 'string-substr',
        edits: [renameCallee(call, 'slice')],
        note: 'substr(start) → slice(start)',
        touched: [],
      };
    if (list.length > 2) return { kind: 'none', note: 'substr with more than two arguments' };
    // From 0, substring clamps a negative or NaN length to an empty string, as substr does.
    if (nonNegativeInteger(start) === 0)
      return {
        kind: 'codemod',
        codemod: 'string-substr',
        edits: [renameCallee(call, 'substring')],
        note: 'substr(0, length) → substring(0, length)',
        touched: [],
      };
    const from = nonNegativeInteger(start);
    const count = nonNegativeInteger(length);
    if (from !== null && count !== null && start !== undefined) {
      return {
        kind: 'codemod',
        codemod: 'string-substr',
        edits: [
          renameCallee(call, 'slice'),
          { start: start.getStart(call.sourceFile), end: length.getEnd(), text: `${from}, ${from + count}` },
        ],
        note: `substr(${from}, ${count}) → slice(${from}, ${from + count})`,
        touched: [],
      };
    }
    return {
      kind: 'none',
      note: 'substr(start, length) with a computed start or length: slice(start, start + length) differs for a negative start or length, and start would be evaluated twice',
    };
  },
};

// ── util.isX(value) → the expression Node documents ────────────────────────────────────────────

/** A replacement and how it binds. */
interface Replacement {
  readonly text: string;
  readonly binding: Binding;
}

const asCall = (text: string): Replacement => ({ text, binding: 'call' });
const asComparison = (text: string): Replacement => ({ text, binding: 'comparison' });

/** What each deprecated util.isX is, as Node implements it (lib/util.js), given the argument's text; null: not without evaluating it twice. */
const UTIL_IS: Readonly<Record<string, (value: string, plain: boolean, util: string | null) => Replacement | null>> = {
  isArray: (v) => asCall(`Array.isArray(${v})`),
  isBoolean: (v) => asComparison(`typeof ${v} === 'boolean'`),
  isFunction: (v) => asComparison(`typeof ${v} === 'function'`),
  isNumber: (v) => asComparison(`typeof ${v} === 'number'`),
  isString: (v) => asComparison(`typeof ${v} === 'string'`),
  isSymbol: (v) => asComparison(`typeof ${v} === 'symbol'`),
  isUndefined: (v) => asComparison(`${v} === undefined`),
  isNull: (v) => asComparison(`${v} === null`),
  isNullOrUndefined: (v, plain) => (plain ? { text: `${v} === null || ${v} === undefined`, binding: 'or' } : null),
  isObject: (v, plain) => (plain ? { text: `${v} !== null && typeof ${v} === 'object'`, binding: 'and' } : null),
  isPrimitive: (v, plain) =>
    plain ? { text: `${v} === null || (typeof ${v} !== 'object' && typeof ${v} !== 'function')`, binding: 'or' } : null,
  isError: (v, plain) =>
    plain
      ? { text: `Object.prototype.toString.call(${v}) === '[object Error]' || ${v} instanceof Error`, binding: 'or' }
      : null,
  isBuffer: (v) => asCall(`Buffer.isBuffer(${v})`),
  // util.isDate and util.isRegExp are util.types.isDate and util.types.isRegExp themselves.
  isDate: (v, _plain, util) => (util === null ? null : asCall(`${util}.types.isDate(${v})`)),
  isRegExp: (v, _plain, util) => (util === null ? null : asCall(`${util}.types.isRegExp(${v})`)),
};

const utilIs: Codemod = {
  id: 'util-is',
  matches: (call) =>
    ts.isCallExpression(call.call) &&
    inNodeModule(call, 'util') &&
    Object.hasOwn(UTIL_IS, call.name.text) &&
    declarationName(call.declaration) === call.name.text,
  rewrite(call) {
    const list = args(call);
    const value = list?.[0];
    const name = call.name.text;
    if (list === null || value === undefined || list.length !== 1)
      return { kind: 'none', note: `util.${name} with other than one argument` };
    const callee = call.call.expression;
    const util =
      ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) ? callee.expression.text : null;
    const replacement = UTIL_IS[name]?.(operand(value, call.sourceFile), isPlainReference(value), util) ?? null;
    if (replacement === null) {
      return {
        kind: 'none',
        note:
          name === 'isDate' || name === 'isRegExp'
            ? `${name} imported on its own: its equivalent, util.types.${name}, needs the util module in scope`
            : `util.${name}(${text(value, call.sourceFile).slice(0, 60)}): its equivalent reads the argument twice, and this argument is not a plain variable or literal`,
      };
    }
    return {
      kind: 'codemod',
      codemod: 'util-is',
      edits: [replaceCall(call, replacement.text, replacement.binding)],
      note: `util.${name}(value) → ${UTIL_IS[name]?.('value', true, 'util')?.text ?? ''}`,
      touched: calleeBinding(call),
    };
  },
};

// ── buf.slice(…) → buf.subarray(…) ────────────────────────────────────────────────────────────

const bufferSlice: Codemod = {
  id: 'buffer-slice',
  matches: (call) =>
    ts.isCallExpression(call.call) &&
    call.name.text === 'slice' &&
    containerName(call.declaration) === 'Buffer' &&
    NODE_TYPES.test(call.declarationFile),
  // Node's Buffer.prototype.slice is `return this.subarray(start, end)`.
  rewrite: (call) => ({
    kind: 'codemod',
    codemod: 'buffer-slice',
    edits: [renameCallee(call, 'subarray')],
    note: 'buf.slice(start, end) → buf.subarray(start, end) (the same view of the same memory)',
    touched: [],
  }),
};

// ── url.parse('literal').field → new URL('literal').field, where both agree ─────────────────────

const URL_FIELDS = new Set(['protocol', 'host', 'hostname', 'port', 'pathname', 'search', 'hash', 'href']);

const urlParse: Codemod = {
  id: 'url-parse-literal',
  matches: (call) =>
    ts.isCallExpression(call.call) &&
    call.name.text === 'parse' &&
    inNodeModule(call, 'url') &&
    declarationName(call.declaration) === 'parse',
  rewrite(call) {
    const general =
      'url.parse accepts relative and malformed URLs that new URL throws on, and its fields differ (null where URL has "", auth, query, path): no rewrite is equivalent for an input not known here';
    const list = args(call);
    const input = list?.[0];
    const parent = call.call.parent;
    if (
      list === null ||
      list.length !== 1 ||
      input === undefined ||
      !ts.isStringLiteralLike(input) ||
      !ts.isPropertyAccessExpression(parent) ||
      parent.expression !== call.call
    )
      return { kind: 'none', note: general };
    const field = parent.name.text;
    const grand = parent.parent;
    const written =
      ts.isBinaryExpression(grand) &&
      grand.left === parent &&
      grand.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      grand.operatorToken.kind <= ts.SyntaxKind.LastAssignment;
    if (!URL_FIELDS.has(field) || written || (ts.isCallExpression(grand) && grand.expression === parent))
      return { kind: 'none', note: general };
    // Both parsers are deterministic functions of the literal: compare what this code reads. Calling
    // the deprecated parser is the proof: its answer for this input is what the rewrite must keep.
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- evaluated to prove the rewrite, never to parse input
    const legacy: unknown = (legacyParse(input.text) as unknown as Record<string, unknown>)[field];
    let whatwg: unknown;
    try {
      whatwg = (new URL(input.text) as unknown as Record<string, unknown>)[field];
    } catch {
      return {
        kind: 'none',
        note: `new URL throws on ${JSON.stringify(input.text.slice(0, 80))}, which url.parse accepts`,
      };
    }
    if (typeof legacy !== 'string' || legacy !== whatwg) {
      return {
        kind: 'none',
        note: `url.parse and new URL disagree on .${field} of ${JSON.stringify(input.text.slice(0, 80))} (${JSON.stringify(legacy)} and ${JSON.stringify(whatwg)})`,
      };
    }
    return {
      kind: 'codemod',
      codemod: 'url-parse-literal',
      edits: [
        {
          start: call.call.getStart(call.sourceFile),
          end: call.call.getEnd(),
          text: `new URL(${text(input, call.sourceFile)})`,
        },
      ],
      note: `url.parse(${JSON.stringify(input.text.slice(0, 60))}).${field} → new URL(…).${field} (the same value for this input)`,
      touched: calleeBinding(call),
    };
  },
};

/** Every codemod, in the order they are tried. */
export const CODEMODS: readonly Codemod[] = [bufferConstructor, stringSubstr, utilIs, bufferSlice, urlParse];

/** Deprecated APIs the critics report that no rewrite keeps equivalent, and why (keyed by the reported name). */
export const NO_REWRITE: Readonly<Record<string, string>> = {
  exists:
    'fs.exists passes its callback a boolean while fs.access passes an error, and it swallows argument errors access throws: no rewrite keeps it (decide how a missing file is handled, then use fs.access, fs.stat or fs.existsSync)',
  log: 'util.log prints a timestamp in its own format: console.log does not, and no built-in does',
  createCipher:
    'crypto.createCipher derives key and IV with MD5 from a password; createCipheriv needs them explicitly, and a rewrite would change the ciphertext',
  createDecipher:
    'crypto.createDecipher derives key and IV with MD5 from a password; createDecipheriv needs them explicitly, and a rewrite would change what decrypts',
  escape:
    'escape encodes non-ASCII characters as %XX and %uXXXX; encodeURIComponent encodes UTF-8 bytes and other characters: the output differs',
  unescape:
    'unescape decodes %uXXXX and Latin-1 %XX; decodeURIComponent decodes UTF-8 and throws on malformed input: the output differs',
  parse:
    'url.parse accepts relative and malformed URLs that new URL throws on, and its fields differ: no rewrite is equivalent in general',
  punycode:
    'the punycode module has no built-in replacement: it takes the userland punycode package (a dependency to add)',
};

function isDeprecated(declaration: ts.Declaration): boolean {
  return ts.getJSDocDeprecatedTag(declaration) !== undefined;
}

/** The name a call uses for what it calls (`Buffer`, `substr`), or null for computed callees. */
function calleeName(call: ts.CallExpression | ts.NewExpression): ts.Identifier | null {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee;
  if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.name)) return callee.name;
  return null;
}

/** The call as a use of a deprecated declaration, or null when what it resolves to carries no deprecation tag. */
export function deprecatedCall(
  call: ts.CallExpression | ts.NewExpression,
  checker: ts.TypeChecker,
  sourceFile: ts.SourceFile,
): DeprecatedCall | null {
  const name = calleeName(call);
  if (name === null) return null;
  const declaration = checker.getResolvedSignature(call)?.declaration;
  if (declaration === undefined || ts.isJSDocSignature(declaration) || !isDeprecated(declaration)) return null;
  return { call, name, declaration, declarationFile: declaration.getSourceFile().fileName, checker, sourceFile };
}

/** The rewrite of a deprecated call: a codemod's edits, or `none` and why. */
export function rewriteOf(call: DeprecatedCall): Rewrite {
  const codemod = CODEMODS.find((c) => c.matches(call));
  if (codemod !== undefined) return codemod.rewrite(call);
  return {
    kind: 'none',
    note: NO_REWRITE[call.name.text] ?? `no codemod rewrites ${call.name.text}: its replacement needs judgement`,
  };
}
