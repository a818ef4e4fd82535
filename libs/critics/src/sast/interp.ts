import ts from 'typescript';
import {
  type CheckKind,
  type ClassRef,
  type FnRef,
  type FnV,
  type Flow,
  type InstV,
  type Loc,
  type ObjV,
  type Origin,
  type ReqV,
  type Refinement,
  type Safety,
  type SchemaV,
  type TaintV,
  type Val,
  ALL_KINDS_MASK,
  kindBit,
  maskOf,
} from './model.js';
import { type ImportBinding, type Unit, normaliseModule, requireSpec, resolveSpecifier } from './project.js';
import { replaceSanitiserMask, testGuardMask } from './regex.js';
import {
  CHILD_PROCESS_SHELL_METHODS,
  CHILD_PROCESS_SPAWN_METHODS,
  CLASS_VALIDATOR_DECORATOR,
  ELEMENT_CALLBACK_METHODS,
  FS_MODULES,
  FS_PATH_ARGS,
  NEST_INPUT_DECORATORS,
  NEST_REQUEST_DECORATORS,
  NEST_SAFE_PIPES,
  NOSQL_QUERY_METHODS,
  NOT_BUSINESS_LOGIC,
  NUMERIC_FUNCTIONS,
  PASS_THROUGH_FUNCTIONS,
  PASS_THROUGH_MODULES,
  REQUEST_INPUT_FIELDS,
  REQUEST_INPUT_METHODS,
  REQUEST_NAMES,
  REQUEST_NESTED,
  REQUEST_SCALAR_FIELDS,
  REQUEST_TYPE,
  REQUEST_WHOLE_FIELDS,
  REQUEST_WHOLE_METHODS,
  RESPONSE_RECEIVER,
  ROUTE_METHODS,
  SAFE_RESULT_METHODS,
  SAFE_TEMPLATE_TAGS,
  SHELL_PROGRAMS,
  SQL_BUILDER_METHODS,
  SQL_RECEIVER_METHODS,
  SQL_TEXT_METHODS,
  STORE_WRITE_METHODS,
  VM_CODE_METHODS,
  isAssertionName,
  isDbReceiver,
  isValidatorName,
  sanitiserKinds,
} from './rules.js';
import { Env, cleanVal, emptyObj, flatten, isTaint, join, mapTaint, newTaint, signature, taintFor } from './values.js';

/** What the engine reports: the check kinds and the sources that count. */
export interface EngineConfig {
  readonly kinds: ReadonlySet<CheckKind>;
  readonly origins: ReadonlySet<Origin>;
}

/** How the interpreter reaches the repository's files (parsed lazily, cached by the caller). */
export interface SourceAccess {
  has(path: string): boolean;
  unit(path: string): Unit | null;
}

interface Frame {
  readonly flows: Map<string, Flow>;
  readonly deps: Set<string>;
}

interface MemoEntry {
  readonly ret: Val;
  readonly flows: Map<string, Flow>;
  readonly deps: Set<string>;
  readonly argSources: readonly (TaintV | null)[];
}

interface Ctx {
  readonly unit: Unit;
  readonly cls: ClassRef | null;
  readonly thisVal: Val;
  returns: Val;
  readonly breaks: (Env | null)[][];
  readonly contentTypes: Map<string, 'html' | 'text'>;
  /** Inside a function (not module top level): raw input passed on from here is "used". */
  readonly inFunction: boolean;
}

interface Callee {
  /** Function or method name ('' when unknown). */
  readonly name: string;
  /** Source text of the receiver ('' for a plain call). */
  readonly receiverText: string;
  /** Root identifier of the receiver chain (`res` for `res.status(200).send`). */
  readonly root: string;
  readonly receiverVal: Val;
  readonly val: Val;
  /** Called by a bare identifier. */
  readonly free: boolean;
  /** The identifier is bound (locally, by import or declaration) rather than a global. */
  readonly bound: boolean;
  readonly text: string;
}

interface Cond {
  readonly t: readonly Refinement[];
  readonly f: readonly Refinement[];
}

const NO_COND: Cond = { t: [], f: [] };
const LITERAL_KINDS = new Set<ts.SyntaxKind>([
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.NumericLiteral,
  ts.SyntaxKind.BigIntLiteral,
  ts.SyntaxKind.RegularExpressionLiteral,
  ts.SyntaxKind.TrueKeyword,
  ts.SyntaxKind.FalseKeyword,
  ts.SyntaxKind.NullKeyword,
  ts.SyntaxKind.SuperKeyword,
]);
const MAX_DEPTH = 12;
// TODO(calibration): bounds the work per entry file on pathological code; raise if real repos hit it.
const MAX_INVOCATIONS = 20_000;
const PATH_BIT = kindBit('path');
const REDIRECT_BIT = kindBit('redirect');
const KNOWN_SINK_MODULES = new Set(['child_process', 'execa', 'shelljs', 'cross-spawn', 'vm', 'path', ...FS_MODULES]);
const SQLITE_STYLE_RECEIVER = /(^|\.)(db|database|sqlite|sqlite3|stmt|statement)$|(Db|DB|Database|Stmt|Statement)$/;

function skip(node: ts.Expression): ts.Expression {
  let expr = node;
  for (;;) {
    if (ts.isParenthesizedExpression(expr) || ts.isAsExpression(expr) || ts.isNonNullExpression(expr) || ts.isTypeAssertionExpression(expr) || ts.isSatisfiesExpression(expr)) {
      expr = expr.expression;
    } else {
      return expr;
    }
  }
}

/** `a.b.c`, `this.x`, `a['b']` → its text; null for anything that is not a plain access path. */
export function pathText(node: ts.Expression): string | null {
  const expr = skip(node);
  if (ts.isIdentifier(expr)) return expr.text;
  if (expr.kind === ts.SyntaxKind.ThisKeyword) return 'this';
  if (ts.isPropertyAccessExpression(expr) && ts.isIdentifier(expr.name)) {
    const base = pathText(expr.expression);
    return base === null ? null : `${base}.${expr.name.text}`;
  }
  if (ts.isElementAccessExpression(expr) && (ts.isStringLiteralLike(expr.argumentExpression) || ts.isNumericLiteral(expr.argumentExpression))) {
    const base = pathText(expr.expression);
    return base === null ? null : `${base}.${expr.argumentExpression.text}`;
  }
  return null;
}

function rootOf(node: ts.Expression): string {
  let expr = skip(node);
  for (;;) {
    if (ts.isPropertyAccessExpression(expr) || ts.isElementAccessExpression(expr) || ts.isCallExpression(expr)) {
      if (ts.isPropertyAccessExpression(expr) && expr.expression.kind === ts.SyntaxKind.ThisKeyword) return `this.${expr.name.text}`;
      expr = skip(expr.expression);
    } else {
      break;
    }
  }
  if (ts.isIdentifier(expr)) return expr.text;
  return expr.kind === ts.SyntaxKind.ThisKeyword ? 'this' : '';
}

function literalText(node: ts.Node | undefined): string | null {
  if (node === undefined) return null;
  if (ts.isStringLiteralLike(node) || ts.isNumericLiteral(node)) return node.text;
  return null;
}

function isStringish(node: ts.Node | undefined): boolean {
  return node !== undefined && (ts.isStringLiteralLike(node) || ts.isTemplateExpression(node) || ts.isRegularExpressionLiteral(node) || ts.isArrayLiteralExpression(node));
}

function isFunctionNode(node: ts.Node): node is ts.ArrowFunction | ts.FunctionExpression {
  return ts.isArrowFunction(node) || ts.isFunctionExpression(node);
}

function propName(name: ts.PropertyName | ts.BindingName | undefined): string | null {
  if (name === undefined) return null;
  if (ts.isIdentifier(name) || ts.isStringLiteralLike(name) || ts.isNumericLiteral(name) || ts.isPrivateIdentifier(name)) return name.text;
  return null;
}

function decoratorsOf(node: ts.Node): readonly ts.Decorator[] {
  return ts.canHaveDecorators(node) ? (ts.getDecorators(node) ?? []) : [];
}

function decoratorName(decorator: ts.Decorator): { name: string; args: readonly ts.Expression[] } | null {
  const expr = decorator.expression;
  if (ts.isCallExpression(expr) && ts.isIdentifier(expr.expression)) return { name: expr.expression.text, args: expr.arguments };
  if (ts.isIdentifier(expr)) return { name: expr.text, args: [] };
  return null;
}

function typeName(type: ts.TypeNode | undefined): string | null {
  if (type === undefined) return null;
  if (ts.isTypeReferenceNode(type)) return ts.isIdentifier(type.typeName) ? type.typeName.text : type.typeName.right.text;
  return null;
}

function containsHtml(text: string): boolean {
  return /<\s*[a-zA-Z!/]/.test(text);
}

/** The taint-tracking interpreter: one instance per analysis run (its memo is shared by every entry). */
export class TaintInterpreter {
  private readonly memo = new Map<string, MemoEntry>();
  private readonly inProgress = new Set<string>();
  private readonly modules = new Map<string, { env: Env; done: boolean; flows: Map<string, Flow>; deps: Set<string> }>();
  private readonly frames: Frame[] = [];
  private readonly inlineDone = new Set<ts.Node>();
  /** What `this.<field> = …` stored, per class (flow-insensitive: every assignment joins in). */
  private readonly fieldValues = new Map<ts.Node, Map<string, Val>>();
  /** Bumped when a class's stored fields change, so method analyses memoised before are redone. */
  private readonly fieldVersions = new Map<ts.Node, number>();
  private depth = 0;
  private invocations = 0;

  constructor(
    private readonly source: SourceAccess,
    private readonly config: EngineConfig,
    private readonly signal?: AbortSignal,
  ) {}

  /** Analyses one file as an entry point: its top level, then every function in it with guessed inputs. */
  analyseEntry(path: string): { flows: Flow[]; deps: Set<string> } {
    const unit = this.source.unit(path);
    const frame = this.pushFrame();
    frame.deps.add(path);
    try {
      if (unit !== null) {
        this.invocations = 0;
        const moduleEnv = this.moduleEnv(unit);
        for (const node of functionsIn(unit.sf)) {
          if (this.inlineDone.has(node)) continue;
          const cls = this.classOf(node, unit);
          const fn: FnRef = { node, file: unit.path, closure: moduleEnv, cls };
          const args = node.parameters.map((param) => this.guessParam(param, unit));
          this.invoke(fn, args, cls === null ? null : { k: 'inst', cls }, null);
        }
      }
    } finally {
      this.popFrame();
    }
    return { flows: [...frame.flows.values()], deps: frame.deps };
  }

  // ───────────────────────────── frames, memo, modules ─────────────────────────────

  private pushFrame(): Frame {
    const frame: Frame = { flows: new Map(), deps: new Set() };
    this.frames.push(frame);
    return frame;
  }

  private popFrame(): void {
    const frame = this.frames.pop();
    const parent = this.frames.at(-1);
    if (frame !== undefined && parent !== undefined) this.mergeInto(parent, frame.flows, frame.deps);
  }

  private mergeInto(frame: Frame, flows: ReadonlyMap<string, Flow>, deps: ReadonlySet<string>): void {
    for (const [key, flow] of flows) if (!frame.flows.has(key)) frame.flows.set(key, flow);
    for (const dep of deps) frame.deps.add(dep);
  }

  private addDep(file: string): void {
    this.frames.at(-1)?.deps.add(file);
  }

  private flow(kind: CheckKind, sink: Loc, sinkName: string, taint: TaintV): void {
    if (!this.config.kinds.has(kind) || !this.config.origins.has(taint.origin)) return;
    if ((taint.clean & kindBit(kind)) !== 0) return;
    const key = `${kind}|${sink.file}|${sink.line}`;
    const frame = this.frames.at(-1);
    if (frame !== undefined && !frame.flows.has(key)) frame.flows.set(key, { kind, sink, sinkName, taint });
  }

  private checkSignal(): void {
    if (this.signal?.aborted === true) throw this.signal.reason;
  }

  private moduleEnv(unit: Unit): Env {
    const known = this.modules.get(unit.path);
    if (known !== undefined) {
      const frame = this.frames.at(-1);
      if (known.done && frame !== undefined) this.mergeInto(frame, known.flows, known.deps);
      return known.env;
    }
    const env = new Env(null);
    const record = { env, done: false, flows: new Map<string, Flow>(), deps: new Set<string>() };
    this.modules.set(unit.path, record);
    const frame = this.pushFrame();
    frame.deps.add(unit.path);
    const ctx = this.newCtx(unit, null, null, false);
    try {
      this.hoist(unit.sf.statements, env, ctx);
      this.execStatements(unit.sf.statements, env, ctx);
    } finally {
      for (const [key, flow] of frame.flows) record.flows.set(key, flow);
      for (const dep of frame.deps) record.deps.add(dep);
      record.done = true;
      this.popFrame();
    }
    return env;
  }

  private newCtx(unit: Unit, cls: ClassRef | null, thisVal: Val, inFunction: boolean): Ctx {
    return { unit, cls, thisVal, returns: null, breaks: [], contentTypes: new Map(), inFunction };
  }

  private loc(node: ts.Node, unit: Unit): Loc {
    const sf = unit.sf;
    const start = node.getStart(sf);
    const line = sf.getLineAndCharacterOfPosition(start).line + 1;
    const endLine = sf.getLineAndCharacterOfPosition(node.end).line + 1;
    const text = node.getText(sf).replace(/\s+/g, ' ').slice(0, 120);
    return { file: unit.path, line, endLine: endLine - line > 15 ? line : endLine, text };
  }

  /** Runs a function with the given argument values (memoised by function, closure and argument shape). */
  private invoke(fn: FnRef, args: readonly Val[], thisVal: Val, callLoc: Loc | null): Val {
    this.checkSignal();
    const closure = fn.closure instanceof Env ? fn.closure : null;
    const fields = fn.cls === null ? 0 : (this.fieldVersions.get(fn.cls.node) ?? 0);
    const key = `${fn.file}:${fn.node.pos}:${closure?.id ?? 0}|${args.map((a) => signature(a)).join(',')}|${signature(thisVal)}|${fields}`;
    const argTaints = args.map((a) => (isTaint(a) ? a : null));
    const memo = this.memo.get(key);
    if (memo !== undefined) {
      const frame = this.frames.at(-1);
      if (frame !== undefined) this.mergeInto(frame, memo.flows, memo.deps);
      return remapSources(memo.ret, memo.argSources, argTaints);
    }
    if (this.inProgress.has(key) || this.depth >= MAX_DEPTH || this.invocations >= MAX_INVOCATIONS) {
      return args.reduce<Val>((acc, a) => join(acc, flatten(a)), null);
    }
    const unit = this.source.unit(fn.file);
    if (unit === null || fn.node.body === undefined) return null;
    this.inProgress.add(key);
    this.invocations += 1;
    this.depth += 1;
    const frame = this.pushFrame();
    frame.deps.add(fn.file);
    let ret: Val = null;
    try {
      const env = new Env(closure);
      const ctx = this.newCtx(unit, fn.cls, thisVal, true);
      fn.node.parameters.forEach((param, i) => {
        if (fn.cls !== null && ts.isConstructorDeclaration(fn.node) && ts.isIdentifier(param.name) && (ts.getModifiers(param)?.length ?? 0) > 0) {
          this.storeField(fn.cls, param.name.text, withVia(args[i] ?? null, callLoc));
        }
        if (param.dotDotDotToken !== undefined) {
          this.bindPattern(param.name, { ...emptyObj(), elems: args.slice(i).map((a) => withVia(a, callLoc)) }, env, ctx);
          return;
        }
        let val = withVia(args[i] ?? null, callLoc);
        if (val === null && param.initializer !== undefined) val = this.eval(param.initializer, env, ctx);
        this.bindPattern(param.name, val, env, ctx);
      });
      const body = fn.node.body;
      if (ts.isBlock(body)) {
        this.hoist(body.statements, env, ctx);
        this.execStatements(body.statements, env, ctx);
      } else if (ts.isExpression(body)) {
        ctx.returns = join(ctx.returns, this.eval(body, env, ctx));
      }
      ret = ctx.returns;
    } finally {
      this.depth -= 1;
      this.inProgress.delete(key);
      this.memo.set(key, { ret, flows: new Map(frame.flows), deps: new Set(frame.deps), argSources: argTaints });
      this.popFrame();
    }
    return ret;
  }

  private classOf(node: ts.Node, unit: Unit): ClassRef | null {
    for (let current: ts.Node | undefined = node.parent; current !== undefined; current = current.parent) {
      if (ts.isClassDeclaration(current) || ts.isClassExpression(current)) {
        return { node: current, file: unit.path, name: current.name?.text ?? '(anonymous)' };
      }
      if (ts.isSourceFile(current)) break;
    }
    return null;
  }

  /** A parameter's value when nobody calls the function: a request when it looks like one. */
  private guessParam(param: ts.ParameterDeclaration, unit: Unit): Val {
    const loc = this.loc(param, unit);
    for (const decorator of decoratorsOf(param)) {
      const info = decoratorName(decorator);
      if (info === null) continue;
      if (NEST_REQUEST_DECORATORS.has(info.name)) return { k: 'req', loc, validated: false };
      if (NEST_INPUT_DECORATORS.has(info.name)) {
        if (info.args.some((arg) => NEST_SAFE_PIPES.test(rootOf(ts.isNewExpression(arg) ? arg.expression : arg)))) return null;
        const keyed = info.args.some((arg) => ts.isStringLiteralLike(arg));
        const validated = this.isValidatedDto(typeName(param.type), unit);
        return newTaint('http', loc, param.getStart(unit.sf), {
          validated,
          scalar: validated || info.name === 'Param' || info.name === 'Headers',
          whole: !keyed && (info.name === 'Body' || info.name === 'Query' || info.name === 'Args'),
        });
      }
    }
    const type = typeName(param.type);
    if (type !== null && REQUEST_TYPE.test(type)) return { k: 'req', loc, validated: false };
    if (isResolverArgs(param)) return newTaint('http', loc, param.getStart(unit.sf), { whole: true });
    if (ts.isIdentifier(param.name) && REQUEST_NAMES.has(param.name.text)) return { k: 'req', loc, validated: false };
    return null;
  }

  /** A DTO class with class-validator decorators (Nest's ValidationPipe validates it). */
  private isValidatedDto(name: string | null, unit: Unit): boolean {
    if (name === null) return false;
    const cls = this.resolveClass(name, unit);
    if (cls === null) return false;
    return cls.node.members.some((member) => decoratorsOf(member).some((d) => CLASS_VALIDATOR_DECORATOR.test(decoratorName(d)?.name ?? '')));
  }

  private resolveClass(name: string, unit: Unit): ClassRef | null {
    const decl = unit.decls.get(name);
    if (decl !== undefined && ts.isClassDeclaration(decl)) return { node: decl, file: unit.path, name };
    const binding = unit.imports.get(name);
    if (binding === undefined) return null;
    const val = this.resolveImport(binding, unit);
    return val !== null && val.k === 'cls' ? val.cls : null;
  }

  // ───────────────────────────── names, imports, exports ─────────────────────────────

  private hoist(statements: readonly ts.Statement[], env: Env, ctx: Ctx): void {
    for (const statement of statements) {
      if (ts.isFunctionDeclaration(statement) && statement.body !== undefined) {
        const name = statement.name?.text ?? '__default';
        env.declare(name, { k: 'fn', fn: { node: statement, file: ctx.unit.path, closure: env, cls: null } });
      } else if (ts.isClassDeclaration(statement)) {
        const name = statement.name?.text ?? '__default';
        env.declare(name, { k: 'cls', cls: { node: statement, file: ctx.unit.path, name } });
      }
    }
  }

  private lookupIdent(name: string, env: Env, ctx: Ctx, node: ts.Node): { val: Val; bound: boolean } {
    const local = env.lookup(name);
    if (local.found) return { val: local.val, bound: true };
    const binding = ctx.unit.imports.get(name);
    if (binding !== undefined) return { val: this.resolveImport(binding, ctx.unit), bound: true };
    const decl = ctx.unit.decls.get(name);
    if (decl !== undefined) {
      const moduleEnv = this.moduleEnv(ctx.unit);
      return { val: moduleEnv.lookup(name).val, bound: true };
    }
    switch (name) {
      case 'process':
        return { val: { k: 'global', name: 'process' }, bound: false };
      case 'location':
        return { val: { k: 'global', name: 'location' }, bound: false };
      case 'document':
        return { val: { k: 'global', name: 'document' }, bound: false };
      case 'window':
      case 'globalThis':
      case 'self':
        return { val: { k: 'global', name: 'window' }, bound: false };
      default:
        if (REQUEST_NAMES.has(name)) return { val: { k: 'req', loc: this.loc(node, ctx.unit), validated: false }, bound: false };
        return { val: null, bound: false };
    }
  }

  private resolveImport(binding: ImportBinding, unit: Unit): Val {
    const target = resolveSpecifier(unit.path, binding.spec, (p) => this.source.has(p));
    if (target === null) {
      const module = normaliseModule(binding.spec);
      return { k: 'mod', module, path: binding.name === '*' || binding.name === 'default' ? [] : [binding.name] };
    }
    this.addDep(target);
    if (binding.name === '*') return { k: 'ns', file: target };
    return this.exportValue(target, binding.name, 0);
  }

  private exportValue(file: string, name: string, depth: number): Val {
    if (depth > 5) return null;
    const unit = this.source.unit(file);
    if (unit === null) return null;
    this.addDep(file);
    const target = unit.exports.get(name);
    if (target !== undefined) {
      if ('local' in target) {
        const env = this.moduleEnv(unit);
        return env.lookup(target.local).val;
      }
      const next = resolveSpecifier(file, target.spec, (p) => this.source.has(p));
      if (next === null) return { k: 'mod', module: normaliseModule(target.spec), path: target.name === '*' ? [] : [target.name] };
      return target.name === '*' ? { k: 'ns', file: next } : this.exportValue(next, target.name, depth + 1);
    }
    for (const spec of unit.starExports) {
      const next = resolveSpecifier(file, spec, (p) => this.source.has(p));
      if (next === null) continue;
      const val = this.exportValue(next, name, depth + 1);
      if (val !== null) return val;
    }
    const cjs = this.moduleEnv(unit).lookup('__cjs').val;
    if (cjs !== null) {
      if (name === 'default') return cjs;
      if (cjs.k === 'obj') return cjs.fields.get(name) ?? null;
    }
    return null;
  }

  /** A member of a class instance (method, arrow property, or an injected/declared field's class). */
  private instMember(cls: ClassRef, name: string, depth = 0): Val {
    if (depth > 4) return null;
    const unit = this.source.unit(cls.file);
    if (unit === null) return null;
    this.addDep(cls.file);
    for (const member of cls.node.members) {
      if (propName(member.name) !== name) continue;
      if ((ts.isMethodDeclaration(member) || ts.isGetAccessorDeclaration(member)) && member.body !== undefined) {
        return { k: 'fn', fn: { node: member, file: cls.file, closure: this.moduleEnv(unit), cls } };
      }
      if (ts.isPropertyDeclaration(member)) {
        const init = member.initializer;
        if (init !== undefined && isFunctionNode(init)) return { k: 'fn', fn: { node: init, file: cls.file, closure: this.moduleEnv(unit), cls } };
        const assigned = this.fieldValues.get(cls.node)?.get(name);
        if (assigned !== undefined && flatten(assigned) !== null) return assigned;
        const typed = this.instanceOfType(member.type, unit);
        if (typed !== null) return typed;
        if (init !== undefined && ts.isNewExpression(init) && ts.isIdentifier(init.expression)) {
          const ref = this.resolveClass(init.expression.text, unit);
          return ref === null ? null : { k: 'inst', cls: ref };
        }
        return null;
      }
    }
    for (const member of cls.node.members) {
      if (!ts.isConstructorDeclaration(member)) continue;
      for (const param of member.parameters) {
        if (!ts.isIdentifier(param.name) || param.name.text !== name) continue;
        const assigned = this.fieldValues.get(cls.node)?.get(name);
        return assigned !== undefined && flatten(assigned) !== null ? assigned : this.instanceOfType(param.type, unit);
      }
    }
    const stored = this.fieldValues.get(cls.node)?.get(name);
    if (stored !== undefined) return stored;
    const heritage = cls.node.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0];
    if (heritage !== undefined && ts.isIdentifier(heritage.expression)) {
      const parent = this.resolveClass(heritage.expression.text, unit);
      if (parent !== null) return this.instMember(parent, name, depth + 1);
    }
    return null;
  }

  private storeField(cls: ClassRef, name: string, val: Val): void {
    const fields = this.fieldValues.get(cls.node) ?? new Map<string, Val>();
    const before = signature(fields.get(name) ?? null);
    const after = join(fields.get(name) ?? null, val);
    fields.set(name, after);
    this.fieldValues.set(cls.node, fields);
    if (signature(after) !== before) this.fieldVersions.set(cls.node, (this.fieldVersions.get(cls.node) ?? 0) + 1);
  }

  private instanceOfType(type: ts.TypeNode | undefined, unit: Unit): InstV | null {
    const name = typeName(type);
    if (name === null) return null;
    const cls = this.resolveClass(name, unit);
    return cls === null ? null : { k: 'inst', cls };
  }

  private staticMember(cls: ClassRef, name: string): Val {
    const unit = this.source.unit(cls.file);
    if (unit === null) return null;
    for (const member of cls.node.members) {
      if (propName(member.name) === name && ts.isMethodDeclaration(member) && member.body !== undefined) {
        return { k: 'fn', fn: { node: member, file: cls.file, closure: this.moduleEnv(unit), cls } };
      }
    }
    return null;
  }

  // ───────────────────────────── statements ─────────────────────────────

  private execStatements(statements: readonly ts.Statement[], start: Env, ctx: Ctx): Env | null {
    let env: Env | null = start;
    for (const statement of statements) {
      if (env === null) return null;
      env = this.exec(statement, env, ctx);
    }
    return env;
  }

  private exec(statement: ts.Statement, env: Env, ctx: Ctx): Env | null {
    if (ts.isVariableStatement(statement)) {
      this.declareList(statement.declarationList, env, ctx);
      return env;
    }
    if (ts.isExpressionStatement(statement)) {
      this.eval(statement.expression, env, ctx);
      if (terminates(statement.expression)) return null;
      this.statementRefinements(statement.expression, env, ctx);
      return env;
    }
    if (ts.isIfStatement(statement)) {
      this.eval(statement.expression, env, ctx);
      const cond = this.cond(statement.expression, env, ctx);
      const thenEnv = env.clone();
      this.refine(thenEnv, cond.t, ctx);
      const elseEnv = env.clone();
      this.refine(elseEnv, cond.f, ctx);
      const thenOut = this.exec(statement.thenStatement, thenEnv, ctx);
      const elseOut = statement.elseStatement === undefined ? elseEnv : this.exec(statement.elseStatement, elseEnv, ctx);
      return Env.merge([thenOut, elseOut]);
    }
    if (ts.isBlock(statement)) {
      this.hoist(statement.statements, env, ctx);
      return this.execStatements(statement.statements, env, ctx);
    }
    if (ts.isReturnStatement(statement)) {
      if (statement.expression !== undefined) ctx.returns = join(ctx.returns, this.eval(statement.expression, env, ctx));
      return null;
    }
    if (ts.isThrowStatement(statement)) {
      this.eval(statement.expression, env, ctx);
      return null;
    }
    if (ts.isBreakStatement(statement)) {
      if (statement.label === undefined) ctx.breaks.at(-1)?.push(env);
      return null;
    }
    if (ts.isContinueStatement(statement)) return null;
    if (ts.isForOfStatement(statement) || ts.isForInStatement(statement)) {
      const iterated = this.eval(statement.expression, env, ctx);
      // for await (const chunk of req): the request body stream.
      const element =
        iterated !== null && iterated.k === 'req'
          ? newTaint('http', this.loc(statement.expression, ctx.unit), statement.expression.getStart(ctx.unit.sf), { whole: true })
          : ts.isForOfStatement(statement)
            ? elementOf(iterated)
            : flatten(iterated);
      return this.loop(env, ctx, (bodyEnv) => {
        this.bindLoopVariable(statement.initializer, element, bodyEnv, ctx);
        return this.exec(statement.statement, bodyEnv, ctx);
      });
    }
    if (ts.isForStatement(statement)) {
      const init = statement.initializer;
      if (init !== undefined) {
        if (ts.isVariableDeclarationList(init)) this.declareList(init, env, ctx);
        else this.eval(init, env, ctx);
      }
      return this.loop(env, ctx, (bodyEnv) => {
        if (statement.condition !== undefined) this.eval(statement.condition, bodyEnv, ctx);
        const out = this.exec(statement.statement, bodyEnv, ctx);
        if (out !== null && statement.incrementor !== undefined) this.eval(statement.incrementor, out, ctx);
        return out;
      });
    }
    if (ts.isWhileStatement(statement) || ts.isDoStatement(statement)) {
      this.eval(statement.expression, env, ctx);
      return this.loop(env, ctx, (bodyEnv) => this.exec(statement.statement, bodyEnv, ctx));
    }
    if (ts.isSwitchStatement(statement)) return this.execSwitch(statement, env, ctx);
    if (ts.isTryStatement(statement)) {
      const tryOut = this.exec(statement.tryBlock, env.clone(), ctx);
      let out = tryOut;
      if (statement.catchClause !== undefined) {
        const catchEnv = (Env.merge([env, tryOut]) ?? env).clone();
        const variable = statement.catchClause.variableDeclaration;
        if (variable !== undefined) this.bindPattern(variable.name, null, catchEnv, ctx);
        out = Env.merge([tryOut, this.exec(statement.catchClause.block, catchEnv, ctx)]);
      }
      if (statement.finallyBlock !== undefined) {
        const finallyOut = this.exec(statement.finallyBlock, (out ?? env).clone(), ctx);
        return out === null ? null : finallyOut;
      }
      return out;
    }
    if (ts.isLabeledStatement(statement)) return this.exec(statement.statement, env, ctx);
    if (ts.isExportAssignment(statement)) {
      env.declare('__default', this.eval(statement.expression, env, ctx));
      return env;
    }
    if (ts.isClassDeclaration(statement)) {
      // Static blocks and property initialisers can hold sinks too; methods are analysed on their own.
      for (const member of statement.members) {
        if (ts.isPropertyDeclaration(member) && member.initializer !== undefined && !isFunctionNode(member.initializer)) this.eval(member.initializer, env, ctx);
      }
      return env;
    }
    return env;
  }

  private loop(env: Env, ctx: Ctx, body: (bodyEnv: Env) => Env | null): Env | null {
    ctx.breaks.push([]);
    const first = body(env.clone());
    const second = body((Env.merge([env, first]) ?? env).clone());
    const breaks = ctx.breaks.pop() ?? [];
    return Env.merge([env, first, second, ...breaks]);
  }

  private execSwitch(statement: ts.SwitchStatement, env: Env, ctx: Ctx): Env | null {
    this.eval(statement.expression, env, ctx);
    const subject = pathText(statement.expression);
    ctx.breaks.push([]);
    let fallthrough: Env | null = null;
    let hasDefault = false;
    for (const clause of statement.caseBlock.clauses) {
      const entry = env.clone();
      if (ts.isCaseClause(clause)) {
        this.eval(clause.expression, env, ctx);
        const lit = skip(clause.expression);
        const constant = ts.isStringLiteralLike(lit) || ts.isNumericLiteral(lit) || ts.isPropertyAccessExpression(lit) || (ts.isIdentifier(lit) && /^[A-Z_][A-Z0-9_]*$/.test(lit.text));
        if (subject !== null && constant) this.refine(entry, [{ path: subject, node: statement.expression, clean: ALL_KINDS_MASK, validated: true }], ctx);
      } else {
        hasDefault = true;
      }
      const start = Env.merge([entry, fallthrough]) ?? entry;
      fallthrough = this.execStatements(clause.statements, start, ctx);
    }
    const breaks = ctx.breaks.pop() ?? [];
    return Env.merge([...breaks, fallthrough, hasDefault ? null : env]);
  }

  private declareList(list: ts.VariableDeclarationList, env: Env, ctx: Ctx): void {
    for (const declaration of list.declarations) {
      const val = declaration.initializer === undefined ? null : this.eval(declaration.initializer, env, ctx);
      this.bindPattern(declaration.name, val, env, ctx);
    }
  }

  private bindLoopVariable(initializer: ts.ForInitializer, element: Val, env: Env, ctx: Ctx): void {
    if (ts.isVariableDeclarationList(initializer)) {
      for (const declaration of initializer.declarations) this.bindPattern(declaration.name, element, env, ctx);
    } else if (ts.isIdentifier(initializer)) {
      env.assign(initializer.text, element);
    }
  }

  private bindPattern(name: ts.BindingName, val: Val, env: Env, ctx: Ctx): void {
    if (ts.isIdentifier(name)) {
      env.declare(name.text, val);
      return;
    }
    if (ts.isObjectBindingPattern(name)) {
      for (const element of name.elements) {
        if (element.dotDotDotToken !== undefined) {
          this.bindPattern(element.name, val, env, ctx);
          continue;
        }
        const key = propName(element.propertyName ?? element.name);
        let part = key === null ? flatten(val) : this.getProp(val, key, element, env, ctx);
        if (part === null && element.initializer !== undefined) part = this.eval(element.initializer, env, ctx);
        this.bindPattern(element.name, part, env, ctx);
      }
      return;
    }
    name.elements.forEach((element, index) => {
      if (ts.isOmittedExpression(element)) return;
      const part = element.dotDotDotToken !== undefined ? val : this.getProp(val, String(index), element, env, ctx);
      this.bindPattern(element.name, part ?? (element.initializer === undefined ? null : this.eval(element.initializer, env, ctx)), env, ctx);
    });
  }

  /** `assertSafe(x)`, `validateOrReject(dto)`, `schema.parse(x)` as statements vouch for their argument afterwards. */
  private statementRefinements(expression: ts.Expression, env: Env, ctx: Ctx): void {
    let expr = skip(expression);
    if (ts.isAwaitExpression(expr)) expr = skip(expr.expression);
    if (!ts.isCallExpression(expr)) return;
    const callee = skip(expr.expression);
    const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
    let mask = 0;
    let validated = false;
    if (isAssertionName(name)) {
      mask = ALL_KINDS_MASK;
      validated = true;
    } else if ((name === 'parse' || name === 'parseAsync' || name === 'validateSync') && ts.isPropertyAccessExpression(callee)) {
      const schema = this.eval(callee.expression, env, ctx);
      if (schema !== null && schema.k === 'schema') {
        validated = true;
        mask = schema.safety.kind === 'safe' ? ALL_KINDS_MASK : maskOf(['business', 'nosql', 'mass-assignment']);
      }
    }
    if (mask === 0) return;
    const refinements: Refinement[] = [];
    for (const arg of expr.arguments) {
      const path = pathText(arg);
      if (path !== null) refinements.push({ path, node: arg, clean: mask, validated });
    }
    this.refine(env, refinements, ctx);
  }

  // ───────────────────────────── conditions and refinements ─────────────────────────────

  private refine(env: Env, refinements: readonly Refinement[], ctx: Ctx): void {
    for (const refinement of refinements) {
      if (refinement.marker !== undefined) {
        const key = `#marker:${refinement.path}`;
        const known = env.lookup(key).val;
        const markers = new Set(known !== null && known.k === 'guard' ? known.whenTrue.map((r) => r.marker) : []);
        markers.add(refinement.marker);
        env.declare(key, { k: 'guard', whenTrue: [...markers].map((marker) => ({ ...refinement, marker })), whenFalse: [] });
        if (markers.has('relative-start') && markers.has('not-protocol-relative')) {
          this.applyClean(env, refinement.path, refinement.node, REDIRECT_BIT, false, ctx, 0);
        }
        continue;
      }
      this.applyClean(env, refinement.path, refinement.node, refinement.clean, refinement.validated, ctx, 0);
    }
  }

  private applyClean(env: Env, path: string, node: ts.Expression, mask: number, validated: boolean, ctx: Ctx, depth: number): void {
    const current = this.eval(node, env, ctx);
    env.declare(path, cleanVal(current, mask, validated));
    if (depth < 3 && isTaint(current) && current.derivedFrom !== null) {
      this.applyClean(env, current.derivedFrom.path, current.derivedFrom.node, mask, validated, ctx, depth + 1);
    }
  }

  /** What is known in each branch of a condition. */
  private cond(expression: ts.Expression, env: Env, ctx: Ctx): Cond {
    const expr = skip(expression);
    if (ts.isPrefixUnaryExpression(expr) && expr.operator === ts.SyntaxKind.ExclamationToken) {
      const inner = this.cond(expr.operand, env, ctx);
      return { t: inner.f, f: inner.t };
    }
    if (ts.isAwaitExpression(expr)) return this.cond(expr.expression, env, ctx);
    if (ts.isBinaryExpression(expr)) return this.binaryCond(expr, env, ctx);
    if (ts.isCallExpression(expr)) return this.callCond(expr, env, ctx);
    if (ts.isIdentifier(expr) || ts.isPropertyAccessExpression(expr)) {
      const path = pathText(expr);
      const val = path === null ? null : env.lookup(path).val;
      if (val !== null && val.k === 'guard') return { t: val.whenTrue, f: val.whenFalse };
    }
    return NO_COND;
  }

  private binaryCond(expr: ts.BinaryExpression, env: Env, ctx: Ctx): Cond {
    const op = expr.operatorToken.kind;
    if (op === ts.SyntaxKind.InKeyword) {
      // `key in ALLOWED`: the key is one of a constant object's own names.
      const path = pathText(expr.left);
      const holder = this.eval(expr.right, env, ctx);
      return path !== null && flatten(holder) === null ? { t: [{ path, node: expr.left, clean: ALL_KINDS_MASK, validated: true }], f: [] } : NO_COND;
    }
    if (op === ts.SyntaxKind.AmpersandAmpersandToken) {
      const a = this.cond(expr.left, env, ctx);
      const b = this.cond(expr.right, env, ctx);
      return { t: [...a.t, ...b.t], f: intersect(a.f, b.f) };
    }
    if (op === ts.SyntaxKind.BarBarToken) {
      const a = this.cond(expr.left, env, ctx);
      const b = this.cond(expr.right, env, ctx);
      return { t: intersect(a.t, b.t), f: [...a.f, ...b.f] };
    }
    const equality = op === ts.SyntaxKind.EqualsEqualsEqualsToken || op === ts.SyntaxKind.EqualsEqualsToken;
    const inequality = op === ts.SyntaxKind.ExclamationEqualsEqualsToken || op === ts.SyntaxKind.ExclamationEqualsToken;
    if (equality || inequality) {
      const positive = this.equalityCond(skip(expr.left), skip(expr.right), env, ctx) ?? this.equalityCond(skip(expr.right), skip(expr.left), env, ctx);
      if (positive === null) return NO_COND;
      return equality ? positive : { t: positive.f, f: positive.t };
    }
    // x.indexOf(v) > -1, >= 0 (allowlist lookups written with indexOf)
    if (op === ts.SyntaxKind.GreaterThanToken || op === ts.SyntaxKind.GreaterThanEqualsToken) {
      const left = skip(expr.left);
      if (ts.isCallExpression(left) && ts.isPropertyAccessExpression(left.expression) && left.expression.name.text === 'indexOf') {
        return this.membershipCond(left, env, ctx);
      }
    }
    return NO_COND;
  }

  /** `subject === other` when true: what it proves. Null when the shape is not a check. */
  private equalityCond(subject: ts.Expression, other: ts.Expression, env: Env, ctx: Ctx): Cond | null {
    if (ts.isTypeOfExpression(subject) && ts.isStringLiteralLike(other)) {
      const path = pathText(subject.expression);
      if (path !== null && ['number', 'boolean', 'bigint'].includes(other.text)) {
        return { t: [{ path, node: subject.expression, clean: ALL_KINDS_MASK, validated: true }], f: [] };
      }
      if (path !== null && other.text === 'string') return { t: [{ path, node: subject.expression, clean: kindBit('nosql'), validated: false }], f: [] };
      return NO_COND;
    }
    if (ts.isCallExpression(subject) && ts.isPropertyAccessExpression(subject.expression) && subject.expression.name.text === 'indexOf') {
      const lit = skip(other);
      const minusOne = ts.isPrefixUnaryExpression(lit) && lit.operator === ts.SyntaxKind.MinusToken && literalText(lit.operand) === '1';
      if (minusOne) {
        const member = this.membershipCond(subject, env, ctx);
        return { t: member.f, f: member.t };
      }
      return null;
    }
    // new URL(x).host === 'example.com', u.origin === allowed
    if (ts.isPropertyAccessExpression(subject) && ['host', 'hostname', 'origin'].includes(subject.name.text)) {
      const otherVal = this.eval(other, env, ctx);
      if (taintFor(otherVal, 'redirect') !== null) return NO_COND;
      const base = skip(subject.expression);
      const target = ts.isNewExpression(base) && base.arguments?.[0] !== undefined ? base.arguments[0] : base;
      const path = pathText(target);
      if (path !== null) return { t: [{ path, node: target, clean: REDIRECT_BIT, validated: true }], f: [] };
      return null;
    }
    const path = pathText(subject);
    if (path === null) return null;
    const constant =
      ts.isStringLiteralLike(other) ||
      ts.isNumericLiteral(other) ||
      other.kind === ts.SyntaxKind.TrueKeyword ||
      other.kind === ts.SyntaxKind.FalseKeyword ||
      (ts.isIdentifier(other) && /^[A-Z_][A-Z0-9_]*$/.test(other.text)) ||
      (ts.isPropertyAccessExpression(other) && /^[A-Z]/.test(other.name.text));
    if (!constant) return null;
    return { t: [{ path, node: subject, clean: ALL_KINDS_MASK, validated: true }], f: [] };
  }

  /** `LIST.includes(x)` / `SET.has(x)` / `LIST.indexOf(x)` being true. */
  private membershipCond(call: ts.CallExpression, env: Env, ctx: Ctx): Cond {
    const callee = call.expression;
    const arg = call.arguments[0];
    if (!ts.isPropertyAccessExpression(callee) || arg === undefined) return NO_COND;
    const receiver = this.eval(callee.expression, env, ctx);
    if (flatten(receiver) !== null) {
      // A tainted string searched for something: `name.includes('..')` being false rules traversal out
      // (also on its parts: `name.split('/').includes('..')`).
      const needle = literalText(skip(arg));
      let searched = skip(callee.expression);
      if (ts.isCallExpression(searched) && ts.isPropertyAccessExpression(searched.expression) && searched.expression.name.text === 'split') searched = searched.expression.expression;
      const path = pathText(searched);
      if (path !== null && needle !== null && ['..', '../', '/', '\\', '..\\'].includes(needle)) {
        return { t: [], f: [{ path, node: searched, clean: PATH_BIT, validated: false }] };
      }
      return NO_COND;
    }
    const refinements: Refinement[] = [];
    const path = pathText(arg);
    if (path !== null) refinements.push({ path, node: arg, clean: ALL_KINDS_MASK, validated: true });
    // ALLOWED_HOSTS.includes(url.hostname) also vouches for the URL it was parsed from.
    const inner = skip(arg);
    if (ts.isPropertyAccessExpression(inner) && ['host', 'hostname', 'origin'].includes(inner.name.text)) {
      const base = skip(inner.expression);
      const target = ts.isNewExpression(base) && base.arguments?.[0] !== undefined ? base.arguments[0] : base;
      const basePath = pathText(target);
      if (basePath !== null) refinements.push({ path: basePath, node: target, clean: REDIRECT_BIT, validated: true });
    }
    return { t: refinements, f: [] };
  }

  private callCond(call: ts.CallExpression, env: Env, ctx: Ctx): Cond {
    const callee = skip(call.expression);
    const arg = call.arguments[0];
    if (ts.isPropertyAccessExpression(callee)) {
      const method = callee.name.text;
      if (method === 'includes' || method === 'has') return this.membershipCond(call, env, ctx);
      if ((method === 'hasOwnProperty' || method === 'hasOwn') && arg !== undefined) {
        // MAP.hasOwnProperty(x), Object.hasOwn(MAP, x): x is a key of a constant object.
        const target = method === 'hasOwn' ? call.arguments[1] : arg;
        const holder = this.eval(method === 'hasOwn' ? arg : callee.expression, env, ctx);
        const path = target === undefined ? null : pathText(target);
        if (path !== null && target !== undefined && flatten(holder) === null) return { t: [{ path, node: target, clean: ALL_KINDS_MASK, validated: true }], f: [] };
        return NO_COND;
      }
      if (method === 'test' && arg !== undefined) {
        const re = this.eval(callee.expression, env, ctx);
        const path = pathText(arg);
        if (re !== null && re.k === 'regex' && path !== null) {
          const mask = redirectRegexMask(re.literal) | testGuardMask(patternOf(re.literal));
          if (mask !== 0) return { t: [{ path, node: arg, clean: mask, validated: true }], f: [] };
        }
        return NO_COND;
      }
      if (method === 'match' && arg !== undefined) {
        const re = this.eval(arg, env, ctx);
        const path = pathText(callee.expression);
        if (re !== null && re.k === 'regex' && path !== null) {
          const mask = redirectRegexMask(re.literal) | testGuardMask(patternOf(re.literal));
          if (mask !== 0) return { t: [{ path, node: callee.expression, clean: mask, validated: true }], f: [] };
        }
        return NO_COND;
      }
      if (method === 'startsWith') return this.startsWithCond(callee.expression, arg, env, ctx);
      if ((method === 'isInteger' || method === 'isSafeInteger' || method === 'isFinite') && arg !== undefined) {
        const path = pathText(arg);
        return path === null ? NO_COND : { t: [{ path, node: arg, clean: ALL_KINDS_MASK, validated: true }], f: [] };
      }
      const viaMethod = this.functionGuard(call, env, ctx);
      if (viaMethod !== null) return viaMethod;
      if (isValidatorName(method) && arg !== undefined) return this.validatorCond(call, method);
      return NO_COND;
    }
    if (ts.isIdentifier(callee) && arg !== undefined) {
      const path = pathText(arg);
      if (path === null) return NO_COND;
      if (callee.text === 'isNaN') return { t: [], f: [{ path, node: arg, clean: ALL_KINDS_MASK, validated: true }] };
      const viaFunction = this.functionGuard(call, env, ctx);
      if (viaFunction !== null) return viaFunction;
      if (isValidatorName(callee.text)) return this.validatorCond(call, callee.text);
    }
    return NO_COND;
  }

  /**
   * A repository function used as a check (`if (!isAllowedColumn(c)) return`): run it with the
   * call's arguments and carry what its boolean result proves about its parameters over to the
   * arguments at the call site.
   */
  private functionGuard(call: ts.CallExpression, env: Env, ctx: Ctx): Cond | null {
    const target = this.eval(call.expression, env, ctx);
    if (target === null || target.k !== 'fn') return null;
    const args = call.arguments.map((a) => this.eval(a, env, ctx));
    const result = this.invoke(target.fn, args, target.fn.cls === null ? null : { k: 'inst', cls: target.fn.cls }, null);
    if (result === null || result.k !== 'guard') return null;
    const params = target.fn.node.parameters.map((p) => (ts.isIdentifier(p.name) ? p.name.text : null));
    const mapRefinements = (refinements: readonly Refinement[]): Refinement[] =>
      refinements.flatMap((r) => {
        const index = params.findIndex((name) => name !== null && (r.path === name || r.path.startsWith(`${name}.`)));
        const argNode = index < 0 ? undefined : call.arguments[index];
        const argPath = argNode === undefined ? null : pathText(argNode);
        if (argPath === null || argNode === undefined || index < 0) return [];
        const suffix = r.path.slice((params[index] ?? '').length);
        return suffix === '' ? [{ ...r, path: argPath, node: argNode }] : [];
      });
    const mapped = { t: mapRefinements(result.whenTrue), f: mapRefinements(result.whenFalse) };
    return mapped.t.length === 0 && mapped.f.length === 0 ? null : mapped;
  }

  private validatorCond(call: ts.CallExpression, name: string): Cond {
    const refinements: Refinement[] = [];
    // `isURL`/`isSafeUrl`-style checks vouch for the value being a URL, not for where it points.
    const mask = /url|uri/i.test(name) && !/relative|local|internal|allowed|safe/i.test(name) ? maskOf(['business', 'nosql', 'mass-assignment']) : ALL_KINDS_MASK;
    for (const arg of call.arguments) {
      const path = pathText(arg);
      if (path !== null) refinements.push({ path, node: arg, clean: mask, validated: true });
    }
    return { t: refinements, f: [] };
  }

  private startsWithCond(subjectNode: ts.Expression, arg: ts.Expression | undefined, env: Env, ctx: Ctx): Cond {
    if (arg === undefined) return NO_COND;
    const subject = this.eval(subjectNode, env, ctx);
    const argNode = skip(arg);
    const lit = literalText(argNode);
    const leading = ts.isBinaryExpression(argNode) ? literalText(skip(argNode.left)) : ts.isTemplateExpression(argNode) ? argNode.head.text : lit;
    // !path.relative(base, target).startsWith('..'): the target stays inside base.
    if (leading !== null && leading.startsWith('..') && isTaint(subject) && subject.derivedFrom?.how === 'relative') {
      return { t: [], f: [{ path: subject.derivedFrom.path, node: subject.derivedFrom.node, clean: PATH_BIT, validated: true }] };
    }
    const path = pathText(subjectNode);
    if (path === null) return NO_COND;
    if (leading !== null && leading.startsWith('..')) return NO_COND;
    if (lit === '/') return { t: [{ path, node: subjectNode, clean: 0, validated: false, marker: 'relative-start' }], f: [] };
    if (lit === '//' || lit === '/\\') return { t: [], f: [{ path, node: subjectNode, clean: 0, validated: false, marker: 'not-protocol-relative' }] };
    if (lit !== null && /^https?:\/\/[^/]+\//.test(lit)) return { t: [{ path, node: subjectNode, clean: REDIRECT_BIT, validated: true }], f: [] };
    // resolved.startsWith(base): a containment check once the path was normalised.
    const argVal = this.eval(arg, env, ctx);
    if (isTaint(subject) && subject.normalized && flatten(argVal) === null) {
      return { t: [{ path, node: subjectNode, clean: PATH_BIT, validated: true }], f: [] };
    }
    return NO_COND;
  }

  // ───────────────────────────── expressions ─────────────────────────────

  private eval(node: ts.Expression, env: Env, ctx: Ctx): Val {
    const expr = skip(node);
    if (ts.isIdentifier(expr)) return this.lookupIdent(expr.text, env, ctx, expr).val;
    if (expr.kind === ts.SyntaxKind.ThisKeyword) return ctx.thisVal;
    if (ts.isRegularExpressionLiteral(expr)) return { k: 'regex', literal: expr.text };
    if (LITERAL_KINDS.has(expr.kind)) return null;
    if (ts.isPropertyAccessExpression(expr)) return this.evalAccess(expr, expr.name.text, env, ctx);
    if (ts.isElementAccessExpression(expr)) {
      const key = literalText(skip(expr.argumentExpression));
      if (key !== null) return this.evalAccess(expr, key, env, ctx);
      const obj = this.eval(expr.expression, env, ctx);
      this.eval(expr.argumentExpression, env, ctx);
      if (obj !== null && obj.k === 'global' && obj.name === 'process.env') return newTaint('env', this.loc(expr, ctx.unit), expr.getStart(ctx.unit.sf), { scalar: true });
      if (obj !== null && obj.k === 'req') return null;
      return obj !== null && obj.k === 'obj' ? join(flatten(obj), null) : isTaint(obj) ? obj : null;
    }
    if (ts.isCallExpression(expr)) return this.evalCall(expr, env, ctx);
    if (ts.isNewExpression(expr)) return this.evalNew(expr, env, ctx);
    if (ts.isTemplateExpression(expr)) return this.evalTemplate(expr, env, ctx);
    if (ts.isTaggedTemplateExpression(expr)) return this.evalTagged(expr, env, ctx);
    if (ts.isBinaryExpression(expr)) return this.evalBinary(expr, env, ctx);
    if (ts.isConditionalExpression(expr)) {
      this.eval(expr.condition, env, ctx);
      const cond = this.cond(expr.condition, env, ctx);
      const whenTrue = this.withRefinements(env, cond.t, ctx, (e) => this.eval(expr.whenTrue, e, ctx));
      const whenFalse = this.withRefinements(env, cond.f, ctx, (e) => this.eval(expr.whenFalse, e, ctx));
      return join(whenTrue, whenFalse);
    }
    if (ts.isAwaitExpression(expr) || ts.isSpreadElement(expr)) return this.eval(expr.expression, env, ctx);
    if (ts.isYieldExpression(expr)) return expr.expression === undefined ? null : this.eval(expr.expression, env, ctx);
    if (ts.isPrefixUnaryExpression(expr)) {
      const operand = this.eval(expr.operand, env, ctx);
      if (expr.operator === ts.SyntaxKind.ExclamationToken && operand !== null && operand.k === 'guard') return { k: 'guard', whenTrue: operand.whenFalse, whenFalse: operand.whenTrue };
      if (expr.operator === ts.SyntaxKind.ExclamationToken) return this.guardOf(expr, env, ctx);
      return null;
    }
    if (ts.isPostfixUnaryExpression(expr) || ts.isTypeOfExpression(expr) || ts.isVoidExpression(expr) || ts.isDeleteExpression(expr)) {
      this.eval(ts.isPostfixUnaryExpression(expr) ? expr.operand : expr.expression, env, ctx);
      return null;
    }
    if (ts.isArrayLiteralExpression(expr)) {
      const elems: Val[] = [];
      let rest: Val = null;
      let spread = false;
      for (const element of expr.elements) {
        const val = this.eval(element, env, ctx);
        if (ts.isSpreadElement(element)) {
          spread = true;
          rest = join(rest, val !== null && val.k === 'obj' ? join(flatten(val), null) : val);
        } else {
          elems.push(val);
        }
      }
      return { k: 'obj', fields: new Map(), rest, elems: spread ? null : elems, literal: null };
    }
    if (ts.isObjectLiteralExpression(expr)) return this.evalObject(expr, env, ctx);
    if (isFunctionNode(expr)) return { k: 'fn', fn: { node: expr, file: ctx.unit.path, closure: env, cls: ctx.cls } };
    if (ts.isClassExpression(expr)) return { k: 'cls', cls: { node: expr, file: ctx.unit.path, name: expr.name?.text ?? '(anonymous)' } };
    if (ts.isJsxElement(expr) || ts.isJsxSelfClosingElement(expr) || ts.isJsxFragment(expr)) {
      this.evalJsx(expr, env, ctx);
      return null;
    }
    if (ts.isCommaListExpression(expr)) return expr.elements.reduce<Val>((_acc, e) => this.eval(e, env, ctx), null);
    ts.forEachChild(expr, (child) => {
      if (ts.isExpression(child)) this.eval(child, env, ctx);
    });
    return null;
  }

  private withRefinements<T>(env: Env, refinements: readonly Refinement[], ctx: Ctx, body: (env: Env) => T): T {
    if (refinements.length === 0) return body(env);
    const scoped = new Env(env);
    this.refine(scoped, refinements, ctx);
    return body(scoped);
  }

  private guardOf(expr: ts.Expression, env: Env, ctx: Ctx): Val {
    const cond = this.cond(expr, env, ctx);
    return cond.t.length === 0 && cond.f.length === 0 ? null : { k: 'guard', whenTrue: cond.t, whenFalse: cond.f };
  }

  private evalAccess(expr: ts.PropertyAccessExpression | ts.ElementAccessExpression, key: string, env: Env, ctx: Ctx): Val {
    const path = pathText(expr);
    if (path !== null) {
      const refined = env.lookup(path);
      if (refined.found) return refined.val;
    }
    const obj = this.eval(expr.expression, env, ctx);
    return this.getProp(obj, key, expr, env, ctx);
  }

  private getProp(obj: Val, key: string, node: ts.Node, _env: Env, ctx: Ctx): Val {
    if (obj === null) return null;
    switch (obj.k) {
      case 'taint':
        if (key === 'length') return null;
        if (node.getStart(ctx.unit.sf) === obj.sourcePos && ts.isExpression(node)) {
          // Still inside the source expression (`req.query` → `req.query.id`): name the whole access.
          return { ...obj, source: { ...obj.source, text: node.getText(ctx.unit.sf).replace(/\s+/g, ' ').slice(0, 120) }, whole: false, prefix: '' };
        }
        return { ...obj, whole: false, prefix: obj.prefix === '' ? '' : null };
      case 'req':
        if (REQUEST_INPUT_FIELDS.has(key)) {
          return newTaint('http', this.loc(node, ctx.unit), node.getStart(ctx.unit.sf), {
            validated: obj.validated,
            scalar: REQUEST_SCALAR_FIELDS.has(key) || obj.validated,
            whole: REQUEST_WHOLE_FIELDS.has(key),
          });
        }
        if (REQUEST_NESTED.has(key)) return obj;
        return null;
      case 'obj': {
        const field = obj.fields.get(key);
        if (field !== undefined) return field;
        if (obj.elems !== null && /^\d+$/.test(key)) return obj.elems[Number(key)] ?? null;
        if (obj.elems !== null && key === 'length') return null;
        return obj.rest;
      }
      case 'mod':
        return { k: 'mod', module: obj.module, path: [...obj.path, key] };
      case 'ns':
        return this.exportValue(obj.file, key, 0);
      case 'cls':
        return this.staticMember(obj.cls, key);
      case 'inst':
        return this.instMember(obj.cls, key);
      case 'global':
        return this.globalProp(obj.name, key, node, ctx);
      case 'schema':
        return obj;
      case 'fn':
      case 'guard':
      case 'regex':
        return null;
    }
  }

  private globalProp(name: 'process' | 'process.env' | 'location' | 'document' | 'window', key: string, node: ts.Node, ctx: Ctx): Val {
    const taint = (origin: Origin, extra: Partial<TaintV> = {}): TaintV => newTaint(origin, this.loc(node, ctx.unit), node.getStart(ctx.unit.sf), extra);
    switch (name) {
      case 'process':
        if (key === 'env') return { k: 'global', name: 'process.env' };
        if (key === 'argv') return taint('argv', { scalar: true });
        return null;
      case 'process.env':
        return taint('env', { scalar: true });
      case 'window':
        if (key === 'location') return { k: 'global', name: 'location' };
        if (key === 'document') return { k: 'global', name: 'document' };
        if (key === 'name') return taint('dom', { scalar: true });
        return null;
      case 'document':
        if (key === 'location') return { k: 'global', name: 'location' };
        if (['URL', 'documentURI', 'referrer', 'baseURI', 'cookie'].includes(key)) return taint('dom', { scalar: true });
        return null;
      case 'location':
        return ['href', 'search', 'hash', 'pathname'].includes(key) ? taint('dom', { scalar: true }) : null;
    }
  }

  private evalObject(expr: ts.ObjectLiteralExpression, env: Env, ctx: Ctx): ObjV {
    const fields = new Map<string, Val>();
    let rest: Val = null;
    for (const property of expr.properties) {
      if (ts.isPropertyAssignment(property)) {
        const key = propName(property.name);
        const val = this.eval(property.initializer, env, ctx);
        if (key === null) rest = join(rest, val);
        else fields.set(key, val);
      } else if (ts.isShorthandPropertyAssignment(property)) {
        fields.set(property.name.text, this.lookupIdent(property.name.text, env, ctx, property.name).val);
      } else if (ts.isSpreadAssignment(property)) {
        const val = this.eval(property.expression, env, ctx);
        if (val !== null && val.k === 'obj') {
          for (const [key, part] of val.fields) fields.set(key, part);
          rest = join(rest, val.rest);
        } else {
          rest = join(rest, val);
        }
      } else if (ts.isMethodDeclaration(property) && property.body !== undefined) {
        const key = propName(property.name);
        if (key !== null) fields.set(key, { k: 'fn', fn: { node: property, file: ctx.unit.path, closure: env, cls: ctx.cls } });
      }
    }
    return { k: 'obj', fields, rest, elems: null, literal: expr };
  }

  private evalTemplate(expr: ts.TemplateExpression, env: Env, ctx: Ctx): Val {
    let out: TaintV | null = null;
    let known = expr.head.text;
    let constant = expr.head.text;
    let opaqueStart = false;
    for (const span of expr.templateSpans) {
      const val = this.eval(span.expression, env, ctx);
      const taint = flatten(val);
      if (taint !== null) {
        if (out === null) out = { ...taint, prefix: opaqueStart ? '\u0000' : known + (taint.prefix ?? '') };
        else out = join(out, taint) as TaintV;
      } else if (out === null && known === '' && !isLiteralish(span.expression)) {
        opaqueStart = true;
      }
      known += span.literal.text;
      constant += span.literal.text;
    }
    if (out === null) return null;
    return { ...out, html: out.html || containsHtml(constant), built: out.built || constant.trim() !== '', whole: false, scalar: true };
  }

  private evalTagged(expr: ts.TaggedTemplateExpression, env: Env, ctx: Ctx): Val {
    const tag = expr.tag.getText(ctx.unit.sf);
    const template = expr.template;
    const parts = ts.isTemplateExpression(template) ? template.templateSpans.map((span) => this.eval(span.expression, env, ctx)) : [];
    if (SAFE_TEMPLATE_TAGS.test(tag)) return null;
    return parts.reduce<Val>((acc, part) => join(acc, flatten(part)), null);
  }

  private evalBinary(expr: ts.BinaryExpression, env: Env, ctx: Ctx): Val {
    const op = expr.operatorToken.kind;
    if (op === ts.SyntaxKind.EqualsToken || op === ts.SyntaxKind.PlusEqualsToken || op === ts.SyntaxKind.QuestionQuestionEqualsToken || op === ts.SyntaxKind.BarBarEqualsToken) {
      return this.evalAssignment(expr, env, ctx);
    }
    if (op === ts.SyntaxKind.AmpersandAmpersandToken) {
      const left = this.eval(expr.left, env, ctx);
      const cond = this.cond(expr.left, env, ctx);
      const right = this.withRefinements(env, cond.t, ctx, (e) => this.eval(expr.right, e, ctx));
      const guard = this.guardOf(expr, env, ctx);
      return guard ?? join(left !== null && left.k === 'guard' ? null : left, right);
    }
    if (op === ts.SyntaxKind.BarBarToken || op === ts.SyntaxKind.QuestionQuestionToken) {
      const left = this.eval(expr.left, env, ctx);
      const cond = op === ts.SyntaxKind.BarBarToken ? this.cond(expr.left, env, ctx) : NO_COND;
      const right = this.withRefinements(env, cond.f, ctx, (e) => this.eval(expr.right, e, ctx));
      if (op === ts.SyntaxKind.BarBarToken) {
        const guard = this.guardOf(expr, env, ctx);
        if (guard !== null) return guard;
      }
      return join(left !== null && left.k === 'guard' ? null : left, right);
    }
    if (op === ts.SyntaxKind.PlusToken) {
      const left = this.eval(expr.left, env, ctx);
      const right = this.eval(expr.right, env, ctx);
      return concat(left, expr.left, right, expr.right);
    }
    if (op === ts.SyntaxKind.CommaToken) {
      this.eval(expr.left, env, ctx);
      return this.eval(expr.right, env, ctx);
    }
    this.eval(expr.left, env, ctx);
    this.eval(expr.right, env, ctx);
    if (
      op === ts.SyntaxKind.EqualsEqualsEqualsToken ||
      op === ts.SyntaxKind.ExclamationEqualsEqualsToken ||
      op === ts.SyntaxKind.EqualsEqualsToken ||
      op === ts.SyntaxKind.ExclamationEqualsToken ||
      op === ts.SyntaxKind.GreaterThanToken ||
      op === ts.SyntaxKind.GreaterThanEqualsToken
    ) {
      return this.guardOf(expr, env, ctx);
    }
    return null;
  }

  private evalAssignment(expr: ts.BinaryExpression, env: Env, ctx: Ctx): Val {
    const target = skip(expr.left);
    let val = this.eval(expr.right, env, ctx);
    if (expr.operatorToken.kind === ts.SyntaxKind.PlusEqualsToken) val = concat(this.eval(target, env, ctx), target, val, expr.right);
    else if (expr.operatorToken.kind !== ts.SyntaxKind.EqualsToken) val = join(this.eval(target, env, ctx), val);
    this.assignmentSinks(target, val, expr, env, ctx);
    if (ts.isIdentifier(target)) {
      env.assign(target.text, val);
      return val;
    }
    const path = pathText(target);
    if (path === 'module.exports') {
      env.assign('__cjs', val);
    } else if (path !== null && (path.startsWith('module.exports.') || path.startsWith('exports.'))) {
      const key = path.split('.').pop() ?? '';
      const current = env.lookup('__cjs').val;
      const base = current !== null && current.k === 'obj' ? current : emptyObj();
      env.assign('__cjs', { ...base, fields: new Map([...base.fields, [key, val]]) });
    } else if (ts.isPropertyAccessExpression(target) && target.expression.kind === ts.SyntaxKind.ThisKeyword && ctx.cls !== null) {
      this.storeField(ctx.cls, target.name.text, val);
    } else if (ts.isPropertyAccessExpression(target) && ts.isIdentifier(target.expression)) {
      const holder = env.lookup(target.expression.text);
      if (holder.found && (holder.val === null || holder.val.k === 'obj')) {
        const base = holder.val ?? emptyObj();
        env.assign(target.expression.text, { ...base, fields: new Map([...base.fields, [target.name.text, val]]) });
      }
    } else if (ts.isElementAccessExpression(target) && ts.isIdentifier(target.expression)) {
      const holder = env.lookup(target.expression.text);
      if (holder.found && holder.val !== null && holder.val.k === 'obj') env.assign(target.expression.text, { ...holder.val, rest: join(holder.val.rest, val) });
    }
    return val;
  }

  private assignmentSinks(target: ts.Expression, val: Val, node: ts.Node, env: Env, ctx: Ctx): void {
    const path = pathText(target) ?? '';
    const loc = (): Loc => this.loc(node, ctx.unit);
    if (ts.isPropertyAccessExpression(target)) {
      const prop = target.name.text;
      if (prop === 'innerHTML' || prop === 'outerHTML' || prop === 'srcdoc') {
        const taint = taintFor(val, 'xss');
        if (taint !== null) this.flow('xss', loc(), prop, taint);
        return;
      }
      if (prop === 'href' || prop === 'location') {
        const base = this.eval(target.expression, env, ctx);
        const isLocation = (base !== null && base.k === 'global' && (base.name === 'location' || base.name === 'window' || base.name === 'document')) || /(^|\.)location$/.test(pathText(target.expression) ?? '');
        if (isLocation) this.redirectSink(val, loc(), path);
        return;
      }
      if (prop === 'body' && /^(ctx|this|context|ctx\.response|this\.response)$/.test(pathText(target.expression) ?? '')) {
        const taint = taintFor(val, 'xss');
        const root = pathText(target.expression) ?? '';
        if (taint !== null && (taint.html || ctx.contentTypes.get(root) === 'html')) this.flow('xss', loc(), `${root}.body`, taint);
      }
      return;
    }
    if (ts.isIdentifier(target) && target.text === 'location' && !env.lookup('location').found) this.redirectSink(val, loc(), 'location');
  }

  private evalJsx(node: ts.JsxElement | ts.JsxSelfClosingElement | ts.JsxFragment, env: Env, ctx: Ctx): void {
    const visit = (child: ts.Node): void => {
      if (ts.isJsxAttribute(child) && child.initializer !== undefined && ts.isJsxExpression(child.initializer) && child.initializer.expression !== undefined) {
        const val = this.eval(child.initializer.expression, env, ctx);
        if (propName(child.name as ts.Identifier) === 'dangerouslySetInnerHTML') {
          const html = val !== null && val.k === 'obj' ? (val.fields.get('__html') ?? val.rest) : val;
          const taint = taintFor(html, 'xss');
          if (taint !== null) this.flow('xss', this.loc(child, ctx.unit), 'dangerouslySetInnerHTML', taint);
        } else if (val !== null && val.k === 'fn') {
          this.invokeInline(val, [], env, ctx);
        }
        return;
      }
      if (ts.isJsxExpression(child) && child.expression !== undefined) {
        const val = this.eval(child.expression, env, ctx);
        if (val !== null && val.k === 'fn') this.invokeInline(val, [], env, ctx);
        return;
      }
      ts.forEachChild(child, visit);
    };
    ts.forEachChild(node, visit);
  }

  // ───────────────────────────── calls ─────────────────────────────

  private describeCallee(node: ts.Expression, env: Env, ctx: Ctx): Callee {
    const expr = skip(node);
    const text = expr.getText(ctx.unit.sf);
    if (ts.isPropertyAccessExpression(expr) || ts.isElementAccessExpression(expr)) {
      const name = ts.isPropertyAccessExpression(expr) ? expr.name.text : (literalText(skip(expr.argumentExpression)) ?? '');
      const receiverVal = this.eval(expr.expression, env, ctx);
      const path = pathText(expr);
      const refined = path === null ? null : env.lookup(path);
      const val = refined?.found === true ? refined.val : this.getProp(receiverVal, name, expr, env, ctx);
      return { name, receiverText: expr.expression.getText(ctx.unit.sf), root: rootOf(expr.expression), receiverVal, val, free: false, bound: true, text };
    }
    if (ts.isIdentifier(expr)) {
      const { val, bound } = this.lookupIdent(expr.text, env, ctx, expr);
      return { name: expr.text, receiverText: '', root: '', receiverVal: null, val, free: true, bound, text };
    }
    return { name: '', receiverText: '', root: '', receiverVal: null, val: this.eval(expr, env, ctx), free: false, bound: true, text };
  }

  private evalCall(node: ts.CallExpression, env: Env, ctx: Ctx): Val {
    if (node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const spec = node.arguments[0] === undefined ? null : this.eval(node.arguments[0], env, ctx);
      this.report('code', spec, this.loc(node, ctx.unit), 'import()');
      return null;
    }
    const callee = this.describeCallee(node.expression, env, ctx);
    const argNodes = node.arguments;
    const args = argNodes.map((arg) => this.eval(arg, env, ctx));
    const loc = this.loc(node, ctx.unit);
    const resolved = callee.val !== null && callee.val.k === 'fn' ? callee.val : null;

    if (resolved === null) this.callSinks(node, callee, args, argNodes, loc, env, ctx);
    this.validationSinks(callee, args, argNodes, loc, resolved, ctx);
    this.noteContentType(callee, argNodes, ctx);

    const result = this.callResult(node, callee, args, argNodes, loc, resolved, env, ctx);
    this.analyseCallbacks(node, callee, args, argNodes, env, ctx);
    if (result === null && (SAFE_RESULT_METHODS.has(callee.name) || isValidatorName(callee.name))) return this.guardOf(node, env, ctx);
    return result;
  }

  private callResult(node: ts.CallExpression, c: Callee, args: readonly Val[], argNodes: readonly ts.Expression[], loc: Loc, resolved: FnV | null, env: Env, ctx: Ctx): Val {
    const first = args[0] ?? null;
    const mask = sanitiserKinds(c.name, c.receiverText);
    if (mask !== 0) return cleanVal(join(flatten(first), isTaint(c.receiverVal) && argNodes.length === 0 ? c.receiverVal : null), mask, false);
    if (c.free && NUMERIC_FUNCTIONS.has(c.name) && !c.bound) return null;
    if (c.receiverText === 'Math' || c.receiverText === 'Number' || c.receiverText === 'crypto' || c.name === 'randomUUID' || c.name === 'hash' || c.name === 'compare') return null;

    if (resolved !== null) {
      const thisVal = c.receiverVal !== null && c.receiverVal.k === 'inst' ? c.receiverVal : resolved.fn.cls === null ? null : ({ k: 'inst', cls: resolved.fn.cls } as InstV);
      return this.invoke(resolved.fn, args, thisVal, loc);
    }

    if (c.free && c.name === 'require' && !c.bound) {
      const spec = requireSpec(node);
      if (spec === null) return null;
      const target = resolveSpecifier(ctx.unit.path, spec, (p) => this.source.has(p));
      if (target === null) return { k: 'mod', module: normaliseModule(spec), path: [] };
      this.addDep(target);
      return this.exportValue(target, 'default', 0) ?? { k: 'ns', file: target };
    }

    const receiver = c.receiverVal;
    if (receiver !== null && receiver.k === 'schema') return this.schemaCall(receiver, c.name, args, argNodes);
    const mod = this.moduleOf(c);
    if (mod !== null) return this.moduleCall(mod, args, argNodes);
    if (receiver !== null && receiver.k === 'req') {
      if (REQUEST_INPUT_METHODS.has(c.name) || REQUEST_INPUT_FIELDS.has(c.name)) {
        return newTaint('http', loc, node.getStart(ctx.unit.sf), {
          validated: receiver.validated || c.name === 'valid',
          whole: REQUEST_WHOLE_METHODS.has(c.name),
          scalar: c.name === 'get' || c.name === 'header' || c.name === 'param' || c.name === 'text',
        });
      }
      if (c.name === 'getRequest' || c.name === 'switchToHttp') return receiver;
      return null;
    }
    if (c.name === 'getRequest') return { k: 'req', loc, validated: false };
    if (isTaint(receiver)) return this.taintedMethod(receiver, c.name, args, argNodes, env, ctx);
    if (c.val !== null && c.val.k === 'taint') return c.val;
    if (receiver !== null && receiver.k === 'obj') return this.objectMethod(receiver, c.name, args, argNodes, env, ctx);
    if (receiver !== null && receiver.k === 'global' && receiver.name === 'location' && c.name === 'toString') return newTaint('dom', loc, node.getStart(ctx.unit.sf));
    if (c.val !== null && c.val.k === 'cls') return { k: 'inst', cls: c.val.cls };
    if (c.free && (PASS_THROUGH_FUNCTIONS.has(c.name) || c.name === 'promisify')) {
      if (c.name === 'promisify') return first;
      const joined = args.reduce<Val>((acc, a) => join(acc, flatten(a)), null);
      return isTaint(joined) ? { ...joined, scalar: c.name === 'String' || joined.scalar } : joined;
    }
    if (c.receiverText === 'JSON') return c.name === 'stringify' ? mapTaint(flatten(first), (t) => ({ ...t, scalar: true })) : first;
    if (c.receiverText === 'Object' || c.receiverText === 'Array' || c.receiverText === 'Buffer') {
      if (c.name === 'assign') return args.reduce<Val>((acc, a) => join(acc, a), null);
      if (c.name === 'keys' || c.name === 'values' || c.name === 'entries' || c.name === 'from' || c.name === 'of' || c.name === 'fromEntries') {
        return args.reduce<Val>((acc, a) => join(acc, flatten(a)), null);
      }
      return null;
    }
    if (c.receiverText === 'String' && c.name === 'raw') return args.reduce<Val>((acc, a) => join(acc, flatten(a)), null);
    // 'SELECT … {id}'.replace('{id}', input), base.concat(input): the text now carries the input.
    if (['replace', 'replaceAll', 'concat', 'padStart', 'padEnd'].includes(c.name) && (receiver === null || receiver.k === 'regex')) {
      const joined = args.slice(c.name.startsWith('replace') ? 1 : 0).reduce<Val>((acc, a) => join(acc, flatten(a)), null);
      return isTaint(joined) ? { ...joined, prefix: null, built: true, scalar: true } : joined;
    }
    return null;
  }

  private moduleOf(c: Callee): { module: string; member: string } | null {
    if (c.val !== null && c.val.k === 'mod') {
      const path = c.val.path.filter((p) => p !== 'promises' && p !== 'default');
      return { module: c.val.module, member: path.at(-1) ?? '' };
    }
    if (c.free && !c.bound) {
      if (CHILD_PROCESS_SHELL_METHODS.has(c.name) || CHILD_PROCESS_SPAWN_METHODS.has(c.name)) return { module: 'child_process', member: c.name };
      if (FS_PATH_ARGS.has(c.name) && (c.name.endsWith('Sync') || c.name.startsWith('create'))) return { module: 'fs', member: c.name };
    }
    return null;
  }

  private moduleCall(mod: { module: string; member: string }, args: readonly Val[], argNodes: readonly ts.Expression[]): Val {
    const joined = (): Val => args.reduce<Val>((acc, a) => join(acc, flatten(a)), null);
    if (mod.module === 'path') {
      const first = args[0] ?? null;
      switch (mod.member) {
        case 'basename':
        case 'extname':
          return cleanVal(flatten(first), PATH_BIT, false);
        case 'resolve':
        case 'join':
        case 'normalize': {
          const all = joined();
          if (!isTaint(all)) return all;
          const taintedIndex = args.findIndex((a) => flatten(a) !== null);
          const node = argNodes[taintedIndex];
          const path = node === undefined ? null : pathText(node);
          return { ...all, normalized: true, prefix: null, derivedFrom: path === null || node === undefined ? all.derivedFrom : { path, node, how: 'resolve' } };
        }
        case 'relative': {
          const target = args[1] ?? null;
          const targetNode = argNodes[1];
          const taint = flatten(target);
          if (taint === null) return null;
          const path = targetNode === undefined ? null : pathText(targetNode);
          return { ...taint, prefix: null, derivedFrom: path === null || targetNode === undefined ? null : { path, node: targetNode, how: 'relative' } };
        }
        case 'dirname':
        case 'parse':
        case 'format':
        case 'toNamespacedPath':
          return flatten(first);
        default:
          return null;
      }
    }
    if (mod.module === 'zod' || mod.module === 'joi' || mod.module === 'yup' || mod.module === 'valibot' || mod.module === 'superstruct') {
      return this.schemaBuild(mod.member, args);
    }
    if (mod.module === 'util' && mod.member === 'promisify') return args[0] ?? null;
    if (PASS_THROUGH_MODULES.has(mod.module)) {
      if (mod.module === 'url' && (mod.member === 'parse' || mod.member === 'resolve')) {
        const taint = flatten(args[mod.member === 'resolve' ? 1 : 0] ?? null);
        const node = argNodes[0];
        const path = node === undefined ? null : pathText(node);
        return taint === null ? null : { ...taint, derivedFrom: path === null || node === undefined ? null : { path, node, how: 'url' } };
      }
      return joined();
    }
    if (mod.module === 'validator' && mod.member === 'escape') return cleanVal(flatten(args[0] ?? null), kindBit('xss'), false);
    if ((mod.module === 'validator' || mod.module === 'class-validator') && /^to(Int|Float|Boolean|Date)$/.test(mod.member)) return null;
    if (mod.module === 'sanitize-filename' || mod.module === 'filenamify') return cleanVal(flatten(args[0] ?? null), PATH_BIT, false);
    if (mod.module === 'shell-quote' && mod.member === 'quote') return cleanVal(flatten(args[0] ?? null), kindBit('command'), false);
    if (mod.module === 'escape-html' || mod.module === 'he' || mod.module === 'dompurify' || mod.module === 'isomorphic-dompurify' || mod.module === 'sanitize-html' || mod.module === 'xss') {
      return cleanVal(flatten(args[0] ?? null), kindBit('xss'), false);
    }
    if (mod.module === 'sqlstring' || mod.module === 'pg-format' || mod.module === 'pg-escape') return cleanVal(flatten(args[0] ?? null), kindBit('sql'), false);
    return null;
  }

  private taintedMethod(receiver: TaintV, name: string, args: readonly Val[], argNodes: readonly ts.Expression[], env: Env, ctx: Ctx): Val {
    if (SAFE_RESULT_METHODS.has(name)) return null;
    if (name === 'replace' || name === 'replaceAll') {
      const pattern = args[0] ?? null;
      const replacement = literalText(argNodes[1] === undefined ? undefined : skip(argNodes[1]));
      if (pattern !== null && pattern.k === 'regex') {
        const text = pattern.literal;
        // path.normalize(p).replace(/^(\.\.(\/|\\|$))+/, ''): after normalising, every `..` is leading.
        if (receiver.normalized && /^\/\^\((\?:)?\\\.\\\./.test(text)) return cleanVal(receiver, PATH_BIT, false);
        const mask = replaceSanitiserMask(patternOf(text), text.slice(text.lastIndexOf('/') + 1) + (name === 'replaceAll' ? 'g' : ''), replacement);
        if (mask !== 0) return cleanVal(receiver, mask, false);
      }
      return join({ ...receiver, prefix: null }, flatten(args[1] ?? null));
    }
    const callback = args[0];
    if ((name === 'map' || name === 'flatMap') && callback !== null && callback !== undefined && callback.k === 'fn') {
      const mapped = this.invokeInline(callback, [receiver], env, ctx);
      return mapped === null ? null : flatten(mapped);
    }
    if ((name === 'map' || name === 'flatMap') && argNodes[0] !== undefined && ts.isIdentifier(skip(argNodes[0])) && NUMERIC_FUNCTIONS.has((skip(argNodes[0]) as ts.Identifier).text)) return null;
    if (name === 'concat' || name === 'padStart' || name === 'padEnd') return args.reduce<Val>((acc, a) => join(acc, flatten(a)), { ...receiver, prefix: name === 'concat' ? receiver.prefix : null });
    return { ...receiver, prefix: ['trim', 'trimEnd', 'toLowerCase', 'toUpperCase', 'toString', 'valueOf', 'normalize'].includes(name) ? receiver.prefix : null };
  }

  private objectMethod(receiver: ObjV, name: string, args: readonly Val[], argNodes: readonly ts.Expression[], env: Env, ctx: Ctx): Val {
    const field = receiver.fields.get(name);
    if (field !== undefined && field !== null && field.k === 'fn') return this.invokeInline(field, args, env, ctx);
    if (SAFE_RESULT_METHODS.has(name)) return null;
    const elements = elementOf(receiver);
    const callback = args[0];
    if ((name === 'map' || name === 'flatMap') && argNodes[0] !== undefined && ts.isIdentifier(skip(argNodes[0])) && NUMERIC_FUNCTIONS.has((skip(argNodes[0]) as ts.Identifier).text)) return null;
    if ((name === 'map' || name === 'flatMap') && callback !== null && callback !== undefined && callback.k === 'fn') {
      const mapped = this.invokeInline(callback, [elements], env, ctx);
      return { k: 'obj', fields: new Map(), rest: mapped, elems: null, literal: null };
    }
    if (['join', 'concat', 'toString', 'flat', 'slice', 'filter', 'values', 'reverse', 'sort', 'get', 'at', 'pop', 'shift', 'find'].includes(name)) {
      if (name === 'join' || name === 'toString') {
        const taint = flatten(receiver);
        return taint === null ? null : { ...taint, prefix: null, built: true, scalar: true };
      }
      if (name === 'get' || name === 'at' || name === 'pop' || name === 'shift' || name === 'find') return elements;
      return receiver;
    }
    return null;
  }

  private schemaBuild(member: string, args: readonly Val[]): Val {
    const safe: SchemaV = { k: 'schema', safety: { kind: 'safe' } };
    switch (member) {
      case 'enum':
      case 'nativeEnum':
      case 'literal':
      case 'number':
      case 'boolean':
      case 'bigint':
      case 'date':
      case 'uuid':
      case 'cuid':
      case 'ulid':
      case 'int':
      case 'valid':
      case 'oneOf':
      case 'equal':
      case 'stringbool':
        return safe;
      case 'string':
      case 'email':
      case 'url':
        return { k: 'schema', safety: { kind: 'string' } };
      case 'object':
      case 'strictObject':
      case 'looseObject': {
        const shape = args[0];
        const fields = new Map<string, Safety>();
        if (shape !== null && shape !== undefined && shape.k === 'obj') {
          for (const [key, val] of shape.fields) fields.set(key, val !== null && val.k === 'schema' ? val.safety : { kind: 'any' });
        }
        return { k: 'schema', safety: { kind: 'object', fields, passthrough: member === 'looseObject' } };
      }
      case 'array':
        return { k: 'schema', safety: { kind: 'array', elem: args[0] !== null && args[0] !== undefined && args[0].k === 'schema' ? args[0].safety : { kind: 'any' } } };
      case 'union':
      case 'alternatives': {
        const options = args[0];
        const parts = options !== null && options !== undefined && options.k === 'obj' ? (options.elems ?? []) : [];
        const allSafe = parts.length > 0 && parts.every((p) => p !== null && p.k === 'schema' && p.safety.kind === 'safe');
        return { k: 'schema', safety: allSafe ? { kind: 'safe' } : { kind: 'any' } };
      }
      case 'coerce':
        return { k: 'mod', module: 'zod', path: [] };
      default:
        return { k: 'schema', safety: { kind: 'any' } };
    }
  }

  private schemaCall(schema: SchemaV, name: string, args: readonly Val[], argNodes: readonly ts.Expression[]): Val {
    const input = args[0] ?? null;
    switch (name) {
      case 'parse':
      case 'parseAsync':
      case 'validateSync':
      case 'validateAsync':
      case 'cast':
      case 'assert':
      case 'create':
        return applySafety(schema.safety, input);
      case 'safeParse':
      case 'safeParseAsync':
      case 'validate':
        return { k: 'obj', fields: new Map([['data', applySafety(schema.safety, input)], ['value', applySafety(schema.safety, input)]]), rest: null, elems: null, literal: null };
      case 'uuid':
      case 'cuid':
      case 'ulid':
      case 'int':
      case 'valid':
      case 'oneOf':
      case 'equals':
      case 'integer':
      case 'datetime':
      case 'ip':
      case 'guid':
      case 'alphanum':
      case 'hex':
      case 'base64':
        return { k: 'schema', safety: schema.safety.kind === 'string' || schema.safety.kind === 'any' ? { kind: 'safe' } : schema.safety };
      case 'regex':
      case 'pattern': {
        const re = argNodes[0] === undefined ? undefined : skip(argNodes[0]);
        const mask = re !== undefined && ts.isRegularExpressionLiteral(re) ? testGuardMask(patternOf(re.text)) : 0;
        return mask === ALL_KINDS_MASK ? { k: 'schema', safety: { kind: 'safe' } } : schema;
      }
      case 'passthrough':
      case 'catchall':
        return schema.safety.kind === 'object' ? { k: 'schema', safety: { ...schema.safety, passthrough: true } } : schema;
      case 'extend':
      case 'merge': {
        const extra = args[0];
        if (schema.safety.kind !== 'object') return schema;
        const fields = new Map(schema.safety.fields);
        if (extra !== null && extra !== undefined && extra.k === 'obj') for (const [key, val] of extra.fields) fields.set(key, val !== null && val.k === 'schema' ? val.safety : { kind: 'any' });
        if (extra !== null && extra !== undefined && extra.k === 'schema' && extra.safety.kind === 'object') for (const [key, s] of extra.safety.fields) fields.set(key, s);
        return { k: 'schema', safety: { ...schema.safety, fields } };
      }
      default:
        return schema;
    }
  }

  /** Analyses inline callbacks with the inputs they will receive (route handlers get a request). */
  private analyseCallbacks(node: ts.CallExpression, c: Callee, args: readonly Val[], argNodes: readonly ts.Expression[], env: Env, ctx: Ctx): void {
    const route = this.isRouteRegistration(c, argNodes);
    const validated = route && argNodes.some((arg) => ts.isCallExpression(skip(arg)) && /valid|celebrate|checkSchema|\bbody\(|\bquery\(|\bparam\(|\bcheck\(/i.test(arg.getText(ctx.unit.sf)));
    const request: ReqV = { k: 'req', loc: this.loc(node, ctx.unit), validated };
    const elementMethod = ELEMENT_CALLBACK_METHODS.has(c.name) && c.receiverVal !== null && (c.receiverVal.k === 'taint' || c.receiverVal.k === 'obj');
    const server = c.name === 'createServer' || (c.name === 'on' && literalText(argNodes[0]) === 'request');
    // req.on('data', (chunk) => …): the request body arriving in pieces.
    const bodyChunks = c.receiverVal !== null && c.receiverVal.k === 'req' && ['on', 'once', 'addListener'].includes(c.name) && literalText(argNodes[0]) === 'data';
    args.forEach((arg, index) => {
      const argNode = argNodes[index];
      if (arg === null || argNode === undefined) return;
      if (arg.k === 'obj' && route && arg.literal !== null) {
        // fastify.route({ handler, schema }): a route with a schema is validated by fastify.
        const handler = arg.fields.get('handler');
        const withSchema = arg.fields.has('schema');
        if (handler !== undefined && handler !== null && handler.k === 'fn') this.invokeInline(handler, [{ ...request, validated: withSchema }], env, ctx);
        return;
      }
      if (arg.k !== 'fn') return;
      const inline = isFunctionNode(skip(argNode));
      if (!inline && !route && !server && !bodyChunks) return;
      if (bodyChunks) {
        this.invokeInline(arg, [newTaint('http', this.loc(node, ctx.unit), node.getStart(ctx.unit.sf), { whole: true })], env, ctx);
      } else if (route || server) {
        this.invokeInline(arg, [request, null, null], env, ctx);
      } else if (elementMethod && c.receiverVal !== null) {
        const element = c.name === 'then' || c.name === 'finally' ? c.receiverVal : elementOf(c.receiverVal);
        this.invokeInline(arg, c.name === 'reduce' || c.name === 'reduceRight' ? [null, element] : [element], env, ctx);
      } else if (inline && !this.inlineDone.has(arg.fn.node)) {
        const unit = this.source.unit(arg.fn.file);
        const guessed = unit === null ? [] : arg.fn.node.parameters.map((p) => this.guessParam(p, unit));
        this.invokeInline(arg, guessed, env, ctx);
      }
    });
  }

  private isRouteRegistration(c: Callee, argNodes: readonly ts.Expression[]): boolean {
    if (!ROUTE_METHODS.has(c.name) || c.receiverText === '' || (c.receiverVal !== null && c.receiverVal.k === 'req')) return false;
    if (c.name === 'on') return literalText(argNodes[0]) === 'request';
    if (c.name === 'use' || c.name === 'route') return true;
    return isStringish(argNodes[0] === undefined ? undefined : skip(argNodes[0])) && argNodes.length >= 2;
  }

  private invokeInline(fn: FnV, args: readonly Val[], _env: Env, _ctx: Ctx): Val {
    this.inlineDone.add(fn.fn.node);
    return this.invoke(fn.fn, args, fn.fn.cls === null ? null : { k: 'inst', cls: fn.fn.cls }, null);
  }

  private evalNew(node: ts.NewExpression, env: Env, ctx: Ctx): Val {
    const callee = this.describeCallee(node.expression, env, ctx);
    const argNodes = node.arguments ?? [];
    const args = argNodes.map((arg) => this.eval(arg, env, ctx));
    const loc = this.loc(node, ctx.unit);
    const first = args[0] ?? null;
    if (callee.free && !callee.bound && callee.name === 'Function') {
      for (const arg of args) {
        const taint = taintFor(arg, 'code');
        if (taint !== null) this.flow('code', loc, 'new Function', taint);
      }
      return null;
    }
    const mod = this.moduleOf(callee);
    if (mod !== null && mod.module === 'vm' && VM_CODE_METHODS.has(mod.member)) {
      const taint = taintFor(first, 'code');
      if (taint !== null) this.flow('code', loc, `new ${callee.text}`, taint);
      return null;
    }
    if (callee.name === 'URL') {
      const taint = flatten(first) ?? flatten(args[1] ?? null);
      const argNode = argNodes[0];
      const path = argNode === undefined ? null : pathText(argNode);
      return taint === null ? null : { ...taint, prefix: flatten(first) === null ? '\u0000' : taint.prefix, derivedFrom: path === null || argNode === undefined ? null : { path, node: argNode, how: 'url' } };
    }
    if (callee.name === 'URLSearchParams' || callee.name === 'String') return flatten(first);
    if (callee.name === 'RegExp' && argNodes[0] !== undefined && ts.isStringLiteralLike(skip(argNodes[0]))) {
      return { k: 'regex', literal: `/${(skip(argNodes[0]) as ts.StringLiteralLike).text}/${literalText(argNodes[1] === undefined ? undefined : skip(argNodes[1])) ?? ''}` };
    }
    if (callee.name === 'Response' && !callee.bound) {
      const init = args[1];
      const headers = init !== null && init !== undefined && init.k === 'obj' && init.literal !== null ? init.literal.getText(ctx.unit.sf) : '';
      const taint = taintFor(first, 'xss');
      if (taint !== null && /text\/html/i.test(headers)) this.flow('xss', loc, 'new Response', taint);
      return null;
    }
    args.forEach((arg) => {
      if (arg !== null && arg.k === 'fn') this.invokeInline(arg, [], env, ctx);
    });
    if (callee.val !== null && callee.val.k === 'cls') {
      const inst: InstV = { k: 'inst', cls: callee.val.cls };
      const ctor = callee.val.cls.node.members.find((m): m is ts.ConstructorDeclaration => ts.isConstructorDeclaration(m) && m.body !== undefined);
      const unit = this.source.unit(callee.val.cls.file);
      if (ctor !== undefined && unit !== null && args.some((a) => flatten(a) !== null)) this.invoke({ node: ctor, file: unit.path, closure: this.moduleEnv(unit), cls: callee.val.cls }, args, inst, loc);
      return inst;
    }
    return null;
  }

  // ───────────────────────────── sinks ─────────────────────────────

  private report(kind: CheckKind, val: Val | undefined, loc: Loc, name: string): void {
    const taint = taintFor(val ?? null, kind);
    if (taint !== null) this.flow(kind, loc, name, taint);
  }

  private redirectSink(val: Val, loc: Loc, name: string): void {
    const taint = taintFor(val, 'redirect');
    if (taint !== null && !safeRedirectPrefix(taint.prefix)) this.flow('redirect', loc, name, taint);
  }

  private callSinks(node: ts.CallExpression, c: Callee, args: readonly Val[], argNodes: readonly ts.Expression[], loc: Loc, env: Env, ctx: Ctx): void {
    const name = c.name;
    const mod = this.moduleOf(c);
    if (mod !== null) {
      const { module, member } = mod;
      if (module === 'child_process' || module === 'execa' || module === 'shelljs' || module === 'cross-spawn') {
        this.commandSink(module, member, args, argNodes, loc, c.text);
      } else if (FS_MODULES.has(module) && FS_PATH_ARGS.has(member)) {
        for (const index of FS_PATH_ARGS.get(member) ?? []) this.report('path', args[index], loc, c.text);
      } else if (module === 'vm' && VM_CODE_METHODS.has(member)) {
        this.report('code', args[0], loc, c.text);
      } else if (/^(next\/navigation|next\/dist\/client\/components\/navigation|@remix-run\/node|@remix-run\/server-runtime|react-router)$/.test(module) && /redirect/i.test(member)) {
        this.redirectSink(args[0] ?? null, loc, c.text);
      }
      // Other modules (a database client, an app's own alias that did not resolve) are judged by the
      // method name below, like any receiver.
      if (KNOWN_SINK_MODULES.has(module) || c.free) return;
    }
    if (c.free) {
      if (c.bound) return;
      if (name === 'eval' || name === 'Function') for (const arg of name === 'eval' ? args.slice(0, 1) : args) this.report('code', arg, loc, name);
      if ((name === 'setTimeout' || name === 'setInterval' || name === 'setImmediate') && args[0] !== null && args[0] !== undefined && args[0].k === 'taint') this.report('code', args[0], loc, name);
      if (name === 'require') this.report('code', args[0], loc, name);
      if (name === 'redirect' || name === 'permanentRedirect') this.redirectSink(args[0] ?? null, loc, name);
      return;
    }
    const receiver = c.receiverVal;
    if (receiver !== null && receiver.k === 'req' && REQUEST_INPUT_METHODS.has(name)) return;

    // SQL text
    let sql: Val | undefined;
    if (SQL_TEXT_METHODS.has(name) && c.receiverText !== 'String') sql = args[0];
    else if (SQL_RECEIVER_METHODS.has(name) && isDbReceiver(c.receiverText) && (!['get', 'all', 'run', 'each', 'pluck', 'iterate'].includes(name) || SQLITE_STYLE_RECEIVER.test(c.receiverText))) sql = args[0];
    else if (SQL_BUILDER_METHODS.has(name) && argNodes[0] !== undefined) {
      const built = flatten(args[0] ?? null);
      if (built !== null && built.built) sql = args[0];
    }
    if (sql !== undefined && sql !== null && sql.k === 'obj' && sql.literal !== null) sql = sql.fields.get('sql') ?? sql.fields.get('text') ?? sql.fields.get('query') ?? null;
    if (sql !== undefined && !(sql !== null && sql.k === 'obj')) this.report('sql', sql, loc, c.text);

    // Redirects
    if (name === 'redirect') {
      const target = args.length >= 2 && argNodes[0] !== undefined && ts.isNumericLiteral(skip(argNodes[0])) ? args[1] : args[0];
      this.redirectSink(target ?? null, loc, c.text);
    }
    if (name === 'location' && RESPONSE_RECEIVER.test(c.root)) this.redirectSink(args[0] ?? null, loc, c.text);
    if (['setHeader', 'set', 'header', 'append', 'setHeaders'].includes(name) && /^location$/i.test(literalText(argNodes[0] === undefined ? undefined : skip(argNodes[0])) ?? '')) {
      this.redirectSink(args[1] ?? null, loc, c.text);
    }
    if (name === 'writeHead') {
      const headers = args.find((a) => a !== null && a.k === 'obj');
      if (headers !== undefined && headers !== null && headers.k === 'obj') this.redirectSink(headers.fields.get('Location') ?? headers.fields.get('location') ?? null, loc, c.text);
    }
    const isLocation = (receiver !== null && receiver.k === 'global' && receiver.name === 'location') || /(^|\.)location$/.test(c.receiverText);
    if ((name === 'assign' || name === 'replace') && isLocation) this.redirectSink(args[0] ?? null, loc, c.text);
    if (name === 'open' && (c.receiverText === 'window' || (receiver !== null && receiver.k === 'global' && receiver.name === 'window'))) this.redirectSink(args[0] ?? null, loc, c.text);

    // HTML
    const isDocument = (receiver !== null && receiver.k === 'global' && receiver.name === 'document') || c.receiverText === 'document';
    if ((name === 'write' || name === 'writeln') && isDocument) this.report('xss', args[0], loc, c.text);
    else if (name === 'insertAdjacentHTML') this.report('xss', args[1], loc, c.text);
    else if (name === 'html' && (/^(\$|jQuery)/.test(c.receiverText) || c.root === 'c' || c.root === 'ctx')) this.report('xss', args[0], loc, c.text);
    else if ((name === 'send' || name === 'write' || name === 'end') && RESPONSE_RECEIVER.test(c.root)) this.responseSink(node, c, args, argNodes, loc, env, ctx);

    // Files served from a request path
    if ((name === 'sendFile' || name === 'download' || name === 'sendfile') && RESPONSE_RECEIVER.test(c.root)) {
      const rooted = args.slice(1).some((options) => options !== null && options.k === 'obj' && options.fields.has('root'));
      if (!rooted) this.report('path', args[0], loc, c.text);
    }
  }

  private responseSink(node: ts.CallExpression, c: Callee, args: readonly Val[], argNodes: readonly ts.Expression[], loc: Loc, _env: Env, ctx: Ctx): void {
    const body = args[0] ?? null;
    if (body === null || body.k === 'obj' || (argNodes[0] !== undefined && ts.isObjectLiteralExpression(skip(argNodes[0])))) return;
    const taint = taintFor(body, 'xss');
    if (taint === null) return;
    const chained = contentTypeInChain(node.expression, ctx.unit.sf);
    const declared = chained ?? ctx.contentTypes.get(c.root) ?? null;
    if (declared === 'text') return;
    if (declared === 'html' || taint.html) {
      this.flow('xss', loc, c.text, taint);
      return;
    }
    // Express's res.send of a string answers text/html; fastify's reply.send and res.end do not.
    if (c.name === 'send' && c.root !== 'reply') this.flow('xss', loc, c.text, taint);
  }

  private noteContentType(c: Callee, argNodes: readonly ts.Expression[], ctx: Ctx): void {
    if (!RESPONSE_RECEIVER.test(c.root)) return;
    let value: string | null = null;
    const first = literalText(argNodes[0] === undefined ? undefined : skip(argNodes[0]));
    if ((c.name === 'type' || c.name === 'contentType') && first !== null) value = first;
    if (['setHeader', 'set', 'header'].includes(c.name) && first !== null && /^content-type$/i.test(first)) value = literalText(argNodes[1] === undefined ? undefined : skip(argNodes[1]));
    if (c.name === 'writeHead') {
      const headers = argNodes.find((a) => ts.isObjectLiteralExpression(skip(a)));
      if (headers !== undefined) value = headers.getText(ctx.unit.sf);
    }
    if (value === null) return;
    ctx.contentTypes.set(c.root, /html/i.test(value) ? 'html' : 'text');
  }

  private commandSink(module: string, member: string, args: readonly Val[], argNodes: readonly ts.Expression[], loc: Loc, name: string): void {
    const shellCommand = CHILD_PROCESS_SHELL_METHODS.has(member) || (module === 'execa' && /^execaCommand/.test(member)) || (module === 'shelljs' && member === 'exec');
    if (shellCommand) {
      this.report('command', args[0], loc, name);
      return;
    }
    const spawnLike = CHILD_PROCESS_SPAWN_METHODS.has(member) || (module === 'execa' && (member === '' || /^execa(Sync|Node)?$/.test(member))) || (module === 'cross-spawn' && (member === '' || member === 'sync'));
    if (!spawnLike) return;
    this.report('command', args[0], loc, name);
    const options = [...args].reverse().find((a) => a !== null && a.k === 'obj' && a.literal !== null);
    const shell = options !== undefined && options !== null && options.k === 'obj' && options.literal !== null && options.literal.properties.some(
      (p) => propName(p.name) === 'shell' && (!ts.isPropertyAssignment(p) || p.initializer.kind !== ts.SyntaxKind.FalseKeyword),
    );
    const program = literalText(argNodes[0] === undefined ? undefined : skip(argNodes[0]));
    const argv = argNodes[1] === undefined ? undefined : skip(argNodes[1]);
    const viaShell = program !== null && SHELL_PROGRAMS.test(program) && argv !== undefined && /['"](-c|\/c|-Command|\/C)['"]/.test(argv.getText());
    // Through a shell the argument array is part of the command line; the options object (env,
    // cwd) is not, even when it is the second argument: spawn(command, { env, shell: true }).
    if ((shell || viaShell) && args[1] !== options) this.report('command', args[1], loc, name);
  }

  private validationSinks(c: Callee, args: readonly Val[], argNodes: readonly ts.Expression[], loc: Loc, resolved: FnV | null, ctx: Ctx): void {
    if (this.config.kinds.has('business') && resolved !== null && ctx.inFunction && !NOT_BUSINESS_LOGIC.test(c.name) && c.name !== '' && !(c.free && c.name === 'require')) {
      for (const arg of args) {
        const taint = taintFor(arg, 'business');
        if (taint !== null && taint.origin === 'http' && !taint.validated && taint.via.length === 0) {
          this.flow('business', loc, c.text, taint);
          break;
        }
      }
    }
    if (this.config.kinds.has('mass-assignment') && resolved === null) {
      const objectAssign = c.name === 'assign' && c.receiverText === 'Object';
      const chain = c.receiverText;
      const store =
        STORE_WRITE_METHODS.has(c.name) &&
        !RESPONSE_RECEIVER.test(c.root) &&
        !(c.receiverVal !== null && c.receiverVal.k === 'req') &&
        (c.name !== 'values' || /insert|into/i.test(chain)) &&
        (c.name !== 'set' || /update/i.test(chain)) &&
        (c.name !== 'build' || /^[A-Z]/.test(c.root)) &&
        (c.name !== 'assign' || objectAssign);
      if (store) {
        const candidates = objectAssign ? (argNodes[0] !== undefined && ts.isObjectLiteralExpression(skip(argNodes[0])) && (skip(argNodes[0]) as ts.ObjectLiteralExpression).properties.length === 0 ? [] : args.slice(1)) : args;
        for (const arg of candidates) {
          const whole = wholeInput(arg);
          if (whole !== null) {
            this.flow('mass-assignment', loc, c.text, whole);
            break;
          }
        }
      }
    }
    if (this.config.kinds.has('nosql') && resolved === null && NOSQL_QUERY_METHODS.has(c.name)) {
      const filter = args[0];
      if (filter !== null && filter !== undefined && filter.k === 'obj' && filter.literal !== null) {
        for (const [key, val] of filter.fields) {
          if (key === 'where' || !isTaint(val)) continue;
          if (val.origin === 'http' && !val.scalar && !val.validated && (val.clean & kindBit('nosql')) === 0) {
            this.flow('nosql', loc, c.text, val);
            break;
          }
        }
      }
    }
  }
}

// ───────────────────────────── helpers ─────────────────────────────

/** Every function-like node with a body in a file. */
export function functionsIn(sf: ts.SourceFile): (ts.SignatureDeclaration & { body?: ts.Node })[] {
  const out: (ts.SignatureDeclaration & { body?: ts.Node })[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) &&
      node.body !== undefined
    ) {
      out.push(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** The second parameter of a GraphQL resolver (`Query: { user: (parent, args) => … }`): client arguments. */
function isResolverArgs(param: ts.ParameterDeclaration): boolean {
  const fn = param.parent;
  if (fn.parameters.indexOf(param) !== 1) return false;
  const holder = ts.isMethodDeclaration(fn) ? fn : fn.parent;
  if (holder === undefined || !(ts.isPropertyAssignment(holder) || ts.isMethodDeclaration(holder))) return false;
  const object = holder.parent;
  if (!ts.isObjectLiteralExpression(object)) return false;
  const owner = object.parent;
  return (ts.isPropertyAssignment(owner) || ts.isVariableDeclaration(owner)) && /^(Query|Mutation|Subscription|resolvers|[A-Z]\w*Resolvers?)$/.test(owner.name.getText());
}

/** `process.exit(1)` and friends end the path like a throw. */
function terminates(expression: ts.Expression): boolean {
  const expr = skip(expression);
  if (!ts.isCallExpression(expr)) return false;
  const text = expr.expression.getText();
  return /^(process\.(exit|abort)|Deno\.exit)$/.test(text);
}

function intersect(a: readonly Refinement[], b: readonly Refinement[]): Refinement[] {
  const out: Refinement[] = [];
  for (const ra of a) {
    const rb = b.find((r) => r.path === ra.path && r.marker === ra.marker);
    if (rb !== undefined) out.push({ ...ra, clean: ra.clean & rb.clean, validated: ra.validated && rb.validated });
  }
  return out;
}

function elementOf(val: Val): Val {
  if (val === null) return null;
  if (val.k === 'obj') return (val.elems ?? []).reduce<Val>((acc, e) => join(acc, e), val.rest);
  return val.k === 'taint' ? { ...val, whole: false } : null;
}

function withVia(val: Val, callLoc: Loc | null): Val {
  if (callLoc === null) return val;
  return mapTaint(val, (t) => ({ ...t, via: [...t.via, callLoc].slice(-4) }));
}

function remapSources(ret: Val, oldSources: readonly (TaintV | null)[], newSources: readonly (TaintV | null)[]): Val {
  if (ret === null) return null;
  return mapTaint(ret, (t) => {
    const index = oldSources.findIndex((old) => old !== null && old.source.file === t.source.file && old.source.line === t.source.line && old.source.text === t.source.text);
    const replacement = index === -1 ? undefined : newSources[index];
    return replacement === undefined || replacement === null ? t : { ...t, origin: replacement.origin, source: replacement.source, sourcePos: replacement.sourcePos, via: replacement.via };
  });
}

function isLiteralish(node: ts.Expression): boolean {
  const expr = skip(node);
  return ts.isStringLiteralLike(expr) || ts.isNumericLiteral(expr);
}

/** String concatenation: taint from either side, the known constant start, and HTML/SQL shape. */
function concat(left: Val, leftNode: ts.Expression, right: Val, rightNode: ts.Expression): Val {
  const lt = flatten(left);
  const rt = flatten(right);
  if (lt === null && rt === null) return null;
  const leftText = literalText(skip(leftNode));
  const rightText = literalText(skip(rightNode));
  const constant = (leftText ?? '') + (rightText ?? '');
  let prefix: string | null;
  if (lt !== null) prefix = lt.prefix;
  else if (leftText !== null) prefix = leftText + (rt?.prefix ?? '');
  else prefix = '\u0000';
  const base = lt !== null && rt !== null ? (join(lt, rt) as TaintV) : (lt ?? rt);
  if (base === null) return null;
  return { ...base, prefix, html: base.html || containsHtml(constant), built: base.built || constant.trim() !== '' || (lt !== null) !== (rt !== null), whole: false, scalar: true };
}

function safeRedirectPrefix(prefix: string | null): boolean {
  if (prefix === null) return false;
  return /^\/[^/\\]/.test(prefix) || /^https?:\/\/[^/?#\\]+[/?#]/.test(prefix) || /^[?#]/.test(prefix) || /^\.\.?\//.test(prefix) || prefix.startsWith('\u0000');
}

function patternOf(regexLiteral: string): string {
  return regexLiteral.slice(1, regexLiteral.lastIndexOf('/'));
}

/** /^\/(?!\/)/ and friends: a same-site path check is enough for a redirect. */
function redirectRegexMask(regexLiteral: string): number {
  const source = patternOf(regexLiteral);
  // A same-site path: ^/ followed by something that is not another slash.
  if (/^\^\\\/(\(\?!\[?\\\/|\[\^\\\/|\[a-zA-Z0-9|\[\\w|\[a-z)/.test(source)) return REDIRECT_BIT;
  // A fixed origin: ^https://host/ (the host written out, optional www., ending in a slash or the end).
  if (/^\^https\??:\\\/\\\/(\(www\\\.\)\?)?[\w-]+(\\\.[\w-]+)+(:\d+)?(\\\/|\(\\\/|\(\?:\\\/|\$|\(\$|\(\?:\$|\(\[\\\/)/.test(source)) return REDIRECT_BIT;
  return 0;
}

function contentTypeInChain(node: ts.Expression, sf: ts.SourceFile): 'html' | 'text' | null {
  let expr = skip(node);
  while (ts.isPropertyAccessExpression(expr) || ts.isCallExpression(expr)) {
    if (ts.isCallExpression(expr) && ts.isPropertyAccessExpression(expr.expression)) {
      const method = expr.expression.name.text;
      const args = expr.arguments.map((a) => a.getText(sf)).join(',');
      if (method === 'type' || method === 'contentType' || (['set', 'header', 'setHeader'].includes(method) && /content-type/i.test(args))) {
        return /html/i.test(args) ? 'html' : 'text';
      }
    }
    expr = skip(expr.expression);
  }
  return null;
}

function applySafety(safety: Safety, input: Val): Val {
  if (input === null) return null;
  switch (safety.kind) {
    case 'safe':
      return null;
    case 'string':
      return mapTaint(flatten(input), (t) => ({ ...t, validated: true, scalar: true, whole: false }));
    case 'any':
      return mapTaint(input, (t) => ({ ...t, validated: true, whole: false }));
    case 'array':
      return { k: 'obj', fields: new Map(), rest: applySafety(safety.elem, elementOf(input)), elems: null, literal: null };
    case 'object': {
      const fields = new Map<string, Val>();
      for (const [key, fieldSafety] of safety.fields) {
        const part = input.k === 'obj' ? (input.fields.get(key) ?? input.rest) : input.k === 'taint' ? { ...input, whole: false } : null;
        fields.set(key, applySafety(fieldSafety, part));
      }
      const rest = safety.passthrough ? mapTaint(flatten(input), (t) => ({ ...t, validated: true, whole: false })) : null;
      return { k: 'obj', fields, rest, elems: null, literal: null };
    }
  }
}

/** A whole request object (mass assignment), directly or as a field/spread of an object literal. */
function wholeInput(val: Val): TaintV | null {
  if (val === null) return null;
  if (val.k === 'taint') return val.whole && !val.validated && val.origin === 'http' ? val : null;
  if (val.k !== 'obj') return null;
  for (const part of [val.rest, val.fields.get('data'), val.fields.get('$set'), val.fields.get('values'), val.fields.get('attributes'), val.fields.get('update')]) {
    if (part !== undefined && part !== null && part.k === 'taint' && part.whole && !part.validated && part.origin === 'http') return part;
  }
  return null;
}

