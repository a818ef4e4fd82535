import ts from 'typescript';
import {
  type Unit,
  buildUnit,
  isCodeFile,
  normaliseModule,
  parseSource,
  requireSpec,
  resolveSpecifier,
} from '../sast/project.js';
import { KEY_APIS, type KeyApi, type KeyCall } from './key-apis.js';

// "A literal used as a key": calls of the APIs in key-apis.ts whose key argument is a string
// written in the repository (directly, through a constant, an object field or a constant imported
// from another file), whatever its entropy. A key read from the environment is not a finding; a
// literal used when the environment has none (`process.env.SECRET || 'dev'`) is one of its own,
// at lower severity.

/** One use of a literal as a key. */
export interface KeyUseHit {
  /** The line of the use (the key argument). */
  readonly line: number;
  readonly kind: 'hardcoded-key' | 'hardcoded-key-fallback';
  /** What the key is for (`JWT signing key (jsonwebtoken)`). */
  readonly label: string;
  /** Enough of the value to recognise it, never enough to use it. */
  readonly redacted: string;
  /** Where the literal is written, when elsewhere than the use. */
  readonly definedAt: { readonly file: string; readonly line: number } | null;
}

export interface KeyUseInput {
  readonly file: string;
  readonly text: string;
  /** Another repository file's text (for constants imported from it), or null. */
  readonly read: (path: string) => string | null;
  readonly exists: (path: string) => boolean;
}

/** Test files hold test doubles of keys on purpose; they are not reviewed by this rule. */
const TEST_FILE = /(^|\/)(test|tests|__tests__|spec|specs|__mocks__|fixtures?|e2e)\/|\.(test|spec|e2e)\.[cm]?[jt]sx?$/;
/** Files that mention none of the key-taking APIs cannot hold a use (checked on the text before parsing). */
const KEY_API_HINT =
  /jsonwebtoken|\bjose\b|express-jwt|express-session|cookie-session|cookie-parser|crypto|passport-|@nestjs\/jwt|jwtService|@fastify\/|fastify-(jwt|cookie)|cryptr|\bsubtle\b/;
/** Public material is no secret. */
const PUBLIC_MATERIAL = /^-----BEGIN (PUBLIC KEY|RSA PUBLIC KEY|CERTIFICATE)-----/;
const MAX_HOPS = 4;

interface Resolved {
  readonly value: string;
  readonly fallback: boolean;
  readonly file: string;
  readonly node: ts.Node;
}

interface Scope {
  readonly unit: Unit;
}

/** Finds the uses of literals as keys in one file; `deps` are the other files read to resolve constants. */
export function findKeyUses(input: KeyUseInput): { readonly hits: KeyUseHit[]; readonly deps: string[] } {
  if (TEST_FILE.test(input.file) || !isCodeFile(input.file) || !KEY_API_HINT.test(input.text))
    return { hits: [], deps: [] };
  const units = new Map<string, Unit | null>();
  const deps = new Set<string>();
  const unitOf = (path: string): Unit | null => {
    if (units.has(path)) return units.get(path) ?? null;
    const text = path === input.file ? input.text : input.read(path);
    if (path !== input.file) deps.add(path);
    const unit = text === null ? null : buildUnit(path, parseSource(path, text));
    units.set(path, unit);
    return unit;
  };
  const unit = unitOf(input.file);
  if (unit === null) return { hits: [], deps: [] };
  const resolver = new LiteralResolver(unitOf, input.exists);
  const hits: KeyUseHit[] = [];
  const seenLines = new Set<number>();
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      for (const api of KEY_APIS) {
        if (!matches(api.call, node, unit)) continue;
        for (const keyNode of keyNodes(api, node, { unit }, resolver)) {
          const resolved = resolver.literal(keyNode, { unit }, 0);
          if (resolved === null || PUBLIC_MATERIAL.test(resolved.value)) continue;
          const line = lineOf(unit.sf, keyNode);
          if (seenLines.has(line)) continue;
          seenLines.add(line);
          const definedLine = lineOf(unitOf(resolved.file)?.sf ?? unit.sf, resolved.node);
          const elsewhere = resolved.file !== unit.path || definedLine !== line;
          hits.push({
            line,
            kind: resolved.fallback ? 'hardcoded-key-fallback' : 'hardcoded-key',
            label: api.label,
            redacted: redact(resolved.value),
            definedAt: elsewhere ? { file: resolved.file, line: definedLine } : null,
          });
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(unit.sf);
  return { hits: hits.sort((a, b) => a.line - b.line), deps: [...deps].sort() };
}

function lineOf(sf: ts.SourceFile, node: ts.Node): number {
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
}

function redact(value: string): string {
  return value.length <= 8 ? '****' : `${value.slice(0, 4)}…${value.slice(-2)} (${value.length} chars)`;
}

function skip(node: ts.Expression): ts.Expression {
  let expr = node;
  while (
    ts.isParenthesizedExpression(expr) ||
    ts.isAsExpression(expr) ||
    ts.isNonNullExpression(expr) ||
    ts.isSatisfiesExpression(expr) ||
    ts.isTypeAssertionExpression(expr)
  )
    expr = expr.expression;
  return expr;
}

const test = (pattern: string | RegExp, value: string): boolean =>
  typeof pattern === 'string' ? pattern === value : pattern.test(value);

/**
 * The package and member a callee names: `jwt.sign` → jsonwebtoken/sign, `session(…)` →
 * express-session/'', `JwtStrategy` after `const JwtStrategy = require('passport-jwt').Strategy` →
 * passport-jwt/Strategy.
 */
function calleeModule(expr: ts.Expression, unit: Unit, hops = 0): { module: string; member: string } | null {
  const path: string[] = [];
  let current = skip(expr);
  while (ts.isPropertyAccessExpression(current)) {
    path.unshift(current.name.text);
    current = skip(current.expression);
  }
  let module: string | null;
  if (ts.isIdentifier(current)) {
    const binding = unit.imports.get(current.text);
    if (binding === undefined) {
      const declared = hops < MAX_HOPS ? declarationOf(current.text, unit) : null;
      const inner = declared === null ? null : calleeModule(declared, unit, hops + 1);
      if (inner === null) return null;
      const members = [...(inner.member === '' ? [] : [inner.member]), ...path].filter(
        (p) => p !== 'default' && p !== 'promises',
      );
      return { module: inner.module, member: members.at(-1) ?? '' };
    }
    module = binding.spec;
    if (binding.name !== '*' && binding.name !== 'default') path.unshift(binding.name);
  } else {
    module = requireSpec(current);
  }
  if (module === null) return null;
  const members = path.filter((p) => p !== 'default' && p !== 'promises');
  return { module: normaliseModule(module), member: members.at(-1) ?? '' };
}

function matches(call: KeyCall, node: ts.CallExpression | ts.NewExpression, unit: Unit): boolean {
  const construct = ts.isNewExpression(node);
  if ('module' in call) {
    if ((call.construct === true) !== construct) return false;
    const callee = calleeModule(node.expression, unit);
    return callee !== null && test(call.module, callee.module) && test(call.member, callee.member);
  }
  if (construct || !ts.isPropertyAccessExpression(skip(node.expression))) return false;
  const access = skip(node.expression) as ts.PropertyAccessExpression;
  if ('chainFrom' in call) {
    if (access.name.text !== call.method) return false;
    let inner: ts.Expression = skip(access.expression);
    while (ts.isCallExpression(inner) && ts.isPropertyAccessExpression(skip(inner.expression)))
      inner = skip((skip(inner.expression) as ts.PropertyAccessExpression).expression);
    if (!ts.isNewExpression(inner)) return false;
    const start = calleeModule(inner.expression, unit);
    return start !== null && start.module === call.chainFrom.module && start.member === call.chainFrom.member;
  }
  if ('plugin' in call) {
    if (access.name.text !== 'register') return false;
    const first = node.arguments[0];
    if (first === undefined) return false;
    const plugin = skip(first);
    const spec = ts.isIdentifier(plugin) ? unit.imports.get(plugin.text)?.spec : requireSpec(plugin);
    return spec !== undefined && spec !== null && call.plugin.includes(spec);
  }
  return access.name.text === call.method && call.receiver.test(access.expression.getText());
}

/** The expressions that hold the key: the argument, or the named fields of the options object there. */
function keyNodes(
  api: KeyApi,
  node: ts.CallExpression | ts.NewExpression,
  scope: Scope,
  resolver: LiteralResolver,
): ts.Expression[] {
  const arg = node.arguments?.[api.key.arg];
  if (arg === undefined) return [];
  const fields = api.key.fields;
  if (fields === undefined) return [arg];
  const object = resolver.objectLiteral(arg, scope, 0);
  if (object === null) return [];
  // JwtModule.registerAsync({ useFactory: () => ({ secret }) }): the options a factory returns.
  const factory = object.properties.find((p) => p.name !== undefined && p.name.getText() === 'useFactory');
  const options =
    factory !== undefined && ts.isPropertyAssignment(factory)
      ? (returnedObject(factory.initializer) ?? object)
      : object;
  return fields.flatMap((field) => {
    const property = options.properties.find(
      (p) => p.name !== undefined && ts.isIdentifier(p.name) && p.name.text === field,
    );
    if (property === undefined) return [];
    if (ts.isPropertyAssignment(property)) return [property.initializer];
    return ts.isShorthandPropertyAssignment(property) ? [property.name] : [];
  });
}

/** The object literal a factory function returns (`() => ({ … })` or `{ return { … } }`). */
function returnedObject(fn: ts.Expression): ts.ObjectLiteralExpression | null {
  const expr = skip(fn);
  if (!ts.isArrowFunction(expr) && !ts.isFunctionExpression(expr)) return null;
  if (!ts.isBlock(expr.body)) {
    const body = skip(expr.body);
    return ts.isObjectLiteralExpression(body) ? body : null;
  }
  for (const statement of expr.body.statements) {
    if (
      ts.isReturnStatement(statement) &&
      statement.expression !== undefined &&
      ts.isObjectLiteralExpression(skip(statement.expression))
    )
      return skip(statement.expression) as ts.ObjectLiteralExpression;
  }
  return null;
}

/** A reference to the environment or configuration (the place a key should come from). */
function isEnvironmentRead(node: ts.Expression): boolean {
  const text = skip(node).getText();
  return (
    /^(process\.env|import\.meta\.env|Deno\.env|Bun\.env)\b/.test(text) ||
    /^(this\.)?(config|configService|settings)\.get(OrThrow)?\(/.test(text)
  );
}

/** Resolves an expression to the literal it always or by default holds, through constants, fields and imports. */
class LiteralResolver {
  constructor(
    private readonly unitOf: (path: string) => Unit | null,
    private readonly exists: (path: string) => boolean,
  ) {}

  literal(node: ts.Expression, scope: Scope, hops: number): Resolved | null {
    if (hops > MAX_HOPS) return null;
    const expr = skip(node);
    const file = scope.unit.path;
    if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr))
      return expr.text === '' ? null : { value: expr.text, fallback: false, file, node: expr };
    if (ts.isTemplateExpression(expr)) {
      let value = expr.head.text;
      for (const span of expr.templateSpans) {
        const part = this.literal(span.expression, scope, hops + 1);
        if (part === null) return null;
        value += part.value + span.literal.text;
      }
      return { value, fallback: false, file, node: expr };
    }
    if (ts.isArrayLiteralExpression(expr)) {
      for (const element of expr.elements) {
        const part = this.literal(element, scope, hops + 1);
        if (part !== null) return part;
      }
      return null;
    }
    if (
      ts.isBinaryExpression(expr) &&
      [ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken].includes(expr.operatorToken.kind)
    ) {
      // process.env.SECRET || 'dev-secret': the literal is the key whenever the variable is missing.
      const left = this.literal(expr.left, scope, hops + 1);
      if (left !== null) return left;
      const right = this.literal(expr.right, scope, hops + 1);
      return right === null ? null : { ...right, fallback: right.fallback || isEnvironmentRead(expr.left) };
    }
    if (ts.isConditionalExpression(expr)) {
      // isProduction ? process.env.KEY : 'dev-key' is a fallback; a literal beside a key read from a
      // file or a vault (fs ? readFileSync('key.pem') : 'placeholder') is only a placeholder.
      const whenTrue = this.literal(expr.whenTrue, scope, hops + 1);
      const whenFalse = this.literal(expr.whenFalse, scope, hops + 1);
      if (whenTrue !== null && whenFalse !== null) return whenTrue;
      const one = whenTrue ?? whenFalse;
      const other = whenTrue === null ? expr.whenTrue : expr.whenFalse;
      return one === null || !isEnvironmentRead(other) ? null : { ...one, fallback: true };
    }
    if (ts.isCallExpression(expr) || ts.isNewExpression(expr)) {
      // Buffer.from('key'), new TextEncoder().encode('key'), String('key'), createSecretKey(Buffer.from('key')): the same bytes.
      const callee = skip(expr.expression).getText();
      const first = expr.arguments?.[0];
      if (first !== undefined && /(^|\.)(from|encode|String|createSecretKey|alloc)$/.test(callee))
        return this.literal(first, scope, hops + 1);
      return null;
    }
    if (ts.isIdentifier(expr)) return this.identifier(expr.text, scope, hops);
    if (ts.isPropertyAccessExpression(expr) || ts.isElementAccessExpression(expr)) {
      const key = ts.isPropertyAccessExpression(expr)
        ? expr.name.text
        : ts.isStringLiteralLike(expr.argumentExpression)
          ? expr.argumentExpression.text
          : null;
      if (key === null) return null;
      const holder = this.objectLiteralWithScope(expr.expression, scope, hops + 1);
      if (holder !== null) {
        const field = fieldOf(holder.object, key);
        return field === null ? null : this.literal(field, holder.scope, hops + 1);
      }
      // config.secret with `import * as config from './config'`: a named export.
      const base = skip(expr.expression);
      if (ts.isIdentifier(base)) {
        const binding = scope.unit.imports.get(base.text);
        const target =
          binding === undefined || binding.name !== '*'
            ? null
            : resolveSpecifier(scope.unit.path, binding.spec, this.exists);
        const unit = target === null ? null : this.unitOf(target);
        if (unit !== null) return this.exported(unit, key, hops + 1);
      }
      return null;
    }
    return null;
  }

  objectLiteral(node: ts.Expression, scope: Scope, hops: number): ts.ObjectLiteralExpression | null {
    return this.objectLiteralWithScope(node, scope, hops)?.object ?? null;
  }

  private objectLiteralWithScope(
    node: ts.Expression,
    scope: Scope,
    hops: number,
  ): { object: ts.ObjectLiteralExpression; scope: Scope } | null {
    if (hops > MAX_HOPS) return null;
    const expr = skip(node);
    if (ts.isObjectLiteralExpression(expr)) return { object: expr, scope };
    if (ts.isIdentifier(expr)) {
      const binding = scope.unit.imports.get(expr.text);
      const declared = binding === undefined ? declarationOf(expr.text, scope.unit) : null;
      if (declared !== null) return this.objectLiteralWithScope(declared, scope, hops + 1);
      const target = binding === undefined ? null : resolveSpecifier(scope.unit.path, binding.spec, this.exists);
      const unit = target === null ? null : this.unitOf(target);
      if (unit === null || binding === undefined) return null;
      const exported =
        binding.name === '*' || binding.name === 'default'
          ? defaultObject(unit)
          : exportedInitializer(unit, binding.name);
      return exported === null ? null : this.objectLiteralWithScope(exported, { unit }, hops + 1);
    }
    if (ts.isPropertyAccessExpression(expr)) {
      const holder = this.objectLiteralWithScope(expr.expression, scope, hops + 1);
      const field = holder === null ? null : fieldOf(holder.object, expr.name.text);
      return field === null || holder === null ? null : this.objectLiteralWithScope(field, holder.scope, hops + 1);
    }
    return null;
  }

  private identifier(name: string, scope: Scope, hops: number): Resolved | null {
    const binding = scope.unit.imports.get(name);
    if (binding === undefined) {
      const declared = declarationOf(name, scope.unit);
      return declared === null ? null : this.literal(declared, scope, hops + 1);
    }
    const target = resolveSpecifier(scope.unit.path, binding.spec, this.exists);
    const unit = target === null ? null : this.unitOf(target);
    if (unit === null) return null;
    if (binding.name === '*') return null;
    if (binding.name === 'default') {
      const value = defaultExport(unit);
      return value === null ? null : this.literal(value, { unit }, hops + 1);
    }
    return this.exported(unit, binding.name, hops + 1);
  }

  private exported(unit: Unit, name: string, hops: number): Resolved | null {
    const init = exportedInitializer(unit, name);
    return init === null ? null : this.literal(init, { unit }, hops);
  }
}

interface Declared {
  readonly initializer: ts.Expression | null;
  readonly count: number;
  readonly reassigned: boolean;
}

const declarationIndexes = new WeakMap<ts.SourceFile, ReadonlyMap<string, Declared>>();

/** Every variable of a file by name: its initializer, how often it is declared, whether it is assigned again (one walk per file). */
function declarationIndex(sf: ts.SourceFile): ReadonlyMap<string, Declared> {
  const known = declarationIndexes.get(sf);
  if (known !== undefined) return known;
  const index = new Map<string, Declared>();
  const note = (name: string, change: Partial<Declared> & { declared?: boolean }): void => {
    const current = index.get(name) ?? { initializer: null, count: 0, reassigned: false };
    index.set(name, {
      initializer: change.initializer ?? current.initializer,
      count: current.count + (change.declared === true ? 1 : 0),
      reassigned: current.reassigned || change.reassigned === true,
    });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name)) {
      const constant = (node.parent.flags & ts.NodeFlags.Const) !== 0;
      note(node.name.text, {
        declared: true,
        initializer: node.initializer ?? null,
        reassigned: !constant && node.initializer === undefined,
      });
    } else if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isIdentifier(node.left)
    ) {
      note(node.left.text, { reassigned: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  declarationIndexes.set(sf, index);
  return index;
}

/** The initializer of a variable declared once in a file and never assigned again, or null. */
function declarationOf(name: string, unit: Unit): ts.Expression | null {
  const declared = declarationIndex(unit.sf).get(name);
  return declared !== undefined && declared.count === 1 && !declared.reassigned ? declared.initializer : null;
}

/** What a file exports under a name, as an expression (`export const X = …`, `export { X }`, `exports.X = …`). */
function exportedInitializer(unit: Unit, name: string): ts.Expression | null {
  const target = unit.exports.get(name);
  if (target !== undefined && 'local' in target) return declarationOf(target.local, unit);
  const object = defaultObject(unit);
  if (object !== null) return fieldOf(object, name);
  for (const statement of unit.sf.statements) {
    if (!ts.isExpressionStatement(statement) || !ts.isBinaryExpression(statement.expression)) continue;
    const assignment = statement.expression;
    if (
      assignment.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      /^(module\.)?exports\.\w+$/.test(assignment.left.getText()) &&
      assignment.left.getText().endsWith(`.${name}`)
    )
      return assignment.right;
  }
  return null;
}

/** The expression of `export default …` or `module.exports = …`. */
function defaultExport(unit: Unit): ts.Expression | null {
  for (const statement of unit.sf.statements) {
    if (ts.isExportAssignment(statement)) return statement.expression;
    if (
      ts.isExpressionStatement(statement) &&
      ts.isBinaryExpression(statement.expression) &&
      statement.expression.left.getText() === 'module.exports'
    )
      return statement.expression.right;
  }
  return null;
}

/** `module.exports = { … }` or `export default { … }` (or a constant holding it) of a configuration file. */
function defaultObject(unit: Unit): ts.ObjectLiteralExpression | null {
  const expr = defaultExport(unit);
  if (expr === null) return null;
  const value = skip(expr);
  if (ts.isObjectLiteralExpression(value)) return value;
  if (ts.isIdentifier(value)) {
    const declared = declarationOf(value.text, unit);
    if (declared !== null && ts.isObjectLiteralExpression(skip(declared)))
      return skip(declared) as ts.ObjectLiteralExpression;
  }
  return null;
}

function fieldOf(object: ts.ObjectLiteralExpression, key: string): ts.Expression | null {
  for (const property of object.properties) {
    if (
      ts.isPropertyAssignment(property) &&
      (ts.isIdentifier(property.name) || ts.isStringLiteralLike(property.name)) &&
      property.name.text === key
    )
      return property.initializer;
    if (ts.isShorthandPropertyAssignment(property) && property.name.text === key) return property.name;
  }
  return null;
}
