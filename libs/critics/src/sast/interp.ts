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
  type RecordV,
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
import {
  containsHtml,
  contentTypeInChain,
  decoratorName,
  decoratorsOf,
  exportedName,
  functionsIn,
  isFunctionNode,
  isLiteralish,
  isResolverArgs,
  isStringish,
  literalText,
  pathText,
  patternOf,
  propName,
  rootOf,
  searchesParameter,
  skip,
  typeName,
} from './syntax.js';
import { replaceSanitiserMask, testGuardMask } from './regex.js';
import {
  ELEMENT_CALLBACK_METHODS,
  NOT_BUSINESS_LOGIC,
  NUMERIC_FUNCTIONS,
  PASS_THROUGH_FUNCTIONS,
  SAFE_RESULT_METHODS,
  SAFE_TEMPLATE_TAGS,
  flowAllowed,
  isAssertionName,
  isValidatorName,
  sanitiserKinds,
} from './rules.js';
import { MODELS } from './models/index.js';
import { CONTENT_TYPE_METHODS, HEADER_METHODS, RESPONSE_RECEIVER } from './models/http-response.js';
import type {
  ArgSlot,
  BrowserGlobal,
  CallPattern,
  CallView,
  CallbackSourceRule,
  GlobalObject,
  PassEffect,
  SchemaLibrary,
  SinkRule,
} from './models/types.js';
import {
  Env,
  applySafety,
  cleanVal,
  concat,
  elementOf,
  emptyObj,
  flatten,
  isTaint,
  join,
  mapTaint,
  newTaint,
  remapSources,
  signature,
  taintFor,
  withVia,
} from './values.js';

/** What the engine reports: the check kinds and the sources that count. */
export interface EngineConfig {
  readonly kinds: ReadonlySet<CheckKind>;
  readonly origins: ReadonlySet<Origin>;
  /**
   * Library mode: parameters of exported functions (and public methods of exported classes) are
   * sources of origin `caller` — what a package's users pass in.
   */
  readonly libraryMode?: boolean;
}

/** How the interpreter reaches the repository's files (parsed lazily, cached by the caller). */
export interface SourceAccess {
  has(path: string): boolean;
  unit(path: string): Unit | null;
}

/** What analysing a piece of code found: flows, the files it read, and the store fields it wrote and read. */
interface Effects {
  readonly flows: Map<string, Flow>;
  readonly deps: Set<string>;
  readonly writes: Map<string, StoredWrite>;
  readonly reads: Set<string>;
}

type Frame = Effects;

interface MemoEntry extends Effects {
  readonly ret: Val;
  readonly argSources: readonly (TaintV | null)[];
}

/**
 * Request input written to a store field (`User.update({ bio: req.body.bio })`): plain data, so the
 * engine can cache it and seed a later analysis with it. `field` is `*` for a whole object written.
 */
export interface StoredWrite {
  readonly store: string;
  readonly field: string;
  readonly origin: Origin;
  readonly source: Loc;
  readonly write: Loc;
  readonly clean: number;
}

/** What one entry file's analysis found. */
export interface EntryResult {
  readonly flows: Flow[];
  readonly deps: Set<string>;
  /** Store fields written with input (keyed `store.field`). */
  readonly writes: ReadonlyMap<string, StoredWrite>;
  /** Store fields read (`store.field`), whether or not input was known to be in them. */
  readonly reads: ReadonlySet<string>;
}

function emptyEffects(): Effects {
  return { flows: new Map(), deps: new Set(), writes: new Map(), reads: new Set() };
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

/** A package member a callee stands for; `instance` when it is called on an object the package returned. */
interface ModuleRef {
  readonly module: string;
  readonly member: string;
  readonly instance: boolean;
  readonly path: readonly string[];
}

interface Cond {
  readonly t: readonly Refinement[];
  readonly f: readonly Refinement[];
}

const NO_COND: Cond = { t: [], f: [] };
/** A repository check that only searches its argument for an allowed text (`url.includes(allowed)`): it proves nothing, and its name must not vouch for it either. */
const WEAK_CHECK: Cond = { t: [], f: [] };
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
/** What a check of a URL's origin or host proves: it is fine to redirect to, and to request. */
const URL_MASK = maskOf(['redirect', 'ssrf']);

/** The taint-tracking interpreter: one instance per analysis run (its memo is shared by every entry). */
export class TaintInterpreter {
  private readonly memo = new Map<string, MemoEntry>();
  private readonly inProgress = new Set<string>();
  private readonly modules = new Map<string, Effects & { env: Env; done: boolean }>();
  /** Store fields known to hold input (seeded by the engine between passes; reads see only these). */
  private storeSeed = new Map<string, StoredWrite>();
  /** Bumped when the seed changes, so function analyses memoised before are redone. */
  private storeVersion = 0;
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

  /**
   * Seeds the store fields that hold input (second-order flows): reads of them in later analyses
   * are sources of origin `stored`. The engine seeds what every entry wrote and re-analyses the
   * entries that read those fields, so the result does not depend on the order of files.
   */
  seedStores(writes: ReadonlyMap<string, StoredWrite>): void {
    this.storeSeed = new Map(writes);
    this.storeVersion += 1;
    // Module top levels and inline callbacks ran with the old seed: run them again when reached.
    this.memo.clear();
    this.modules.clear();
    this.inlineDone.clear();
  }

  /** Analyses one file as an entry point: its top level, then every function in it with guessed inputs. */
  analyseEntry(path: string): EntryResult {
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
    return { flows: [...frame.flows.values()], deps: frame.deps, writes: frame.writes, reads: frame.reads };
  }

  // ───────────────────────────── frames, memo, modules ─────────────────────────────

  private pushFrame(): Frame {
    const frame = emptyEffects();
    this.frames.push(frame);
    return frame;
  }

  private popFrame(): void {
    const frame = this.frames.pop();
    const parent = this.frames.at(-1);
    if (frame !== undefined && parent !== undefined) this.mergeInto(parent, frame);
  }

  private mergeInto(frame: Frame, effects: Effects): void {
    for (const [key, flow] of effects.flows) if (!frame.flows.has(key)) frame.flows.set(key, flow);
    for (const dep of effects.deps) frame.deps.add(dep);
    for (const [key, write] of effects.writes) if (!frame.writes.has(key)) frame.writes.set(key, write);
    for (const read of effects.reads) frame.reads.add(read);
  }

  private copyEffects(frame: Frame): Effects {
    return {
      flows: new Map(frame.flows),
      deps: new Set(frame.deps),
      writes: new Map(frame.writes),
      reads: new Set(frame.reads),
    };
  }

  private addDep(file: string): void {
    this.frames.at(-1)?.deps.add(file);
  }

  private flow(kind: CheckKind, sink: Loc, sinkName: string, taint: TaintV): void {
    if (!this.config.kinds.has(kind) || !this.config.origins.has(taint.origin)) return;
    if ((taint.clean & kindBit(kind)) !== 0 || !flowAllowed(kind, taint)) return;
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
      if (known.done && frame !== undefined) this.mergeInto(frame, known);
      return known.env;
    }
    const env = new Env(null);
    const record = { env, done: false, ...emptyEffects() };
    this.modules.set(unit.path, record);
    const frame = this.pushFrame();
    frame.deps.add(unit.path);
    const ctx = this.newCtx(unit, null, null, false);
    try {
      this.hoist(unit.sf.statements, env, ctx);
      this.execStatements(unit.sf.statements, env, ctx);
    } finally {
      this.mergeInto(record, frame);
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
    const key = `${fn.file}:${fn.node.pos}:${closure?.id ?? 0}|${args.map((a) => signature(a)).join(',')}|${signature(thisVal)}|${fields}|${this.storeVersion}`;
    const argTaints = args.map((a) => (isTaint(a) ? a : null));
    const memo = this.memo.get(key);
    if (memo !== undefined) {
      const frame = this.frames.at(-1);
      if (frame !== undefined) this.mergeInto(frame, memo);
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
        if (
          fn.cls !== null &&
          ts.isConstructorDeclaration(fn.node) &&
          ts.isIdentifier(param.name) &&
          (ts.getModifiers(param)?.length ?? 0) > 0
        ) {
          this.storeField(fn.cls, param.name.text, withVia(args[i] ?? null, callLoc));
        }
        if (param.dotDotDotToken !== undefined) {
          this.bindPattern(
            param.name,
            { ...emptyObj(), elems: args.slice(i).map((a) => withVia(a, callLoc)) },
            env,
            ctx,
          );
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
      this.memo.set(key, { ret, ...this.copyEffects(frame), argSources: argTaints });
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

  /**
   * A parameter's value when nobody calls the function: a request, input or a message when the
   * framework models say so (a decorator, a type, an exported handler, a resolver, a name), an
   * object of a tracked package when typed with one of its classes, and in library mode what a
   * caller of an exported function passes.
   */
  private guessParam(param: ts.ParameterDeclaration, unit: Unit): Val {
    const loc = this.loc(param, unit);
    const pos = param.getStart(unit.sf);
    for (const decorator of decoratorsOf(param)) {
      const info = decoratorName(decorator);
      const source = info === null ? undefined : MODELS.decorators.get(info.name);
      if (info === null || source === undefined) continue;
      if (source.yields === 'request') return { k: 'req', loc, validated: false };
      if (
        info.args.some((arg) =>
          MODELS.safePipes.some((pipe) => pipe.test(rootOf(ts.isNewExpression(arg) ? arg.expression : arg))),
        )
      )
        return null;
      const keyed = info.args.some((arg) => ts.isStringLiteralLike(arg));
      const validated = this.isValidatedDto(typeName(param.type), unit);
      return newTaint('http', loc, pos, {
        validated,
        scalar: validated || source.scalar === true,
        whole: !keyed && source.whole === true,
      });
    }
    const type = typeName(param.type);
    const typed = type === null ? undefined : MODELS.requestTypes.find((t) => t.name.test(type));
    if (typed !== undefined) return { k: 'req', loc, validated: false, flavor: typed.flavor };
    const fn = param.parent;
    const exported = exportedName(fn, unit);
    if (exported !== null && fn.parameters.indexOf(param) === 0) {
      const handler = MODELS.exportedHandlers.find((h) => h.names.test(exported));
      if (handler !== undefined) return { k: 'req', loc, validated: false, flavor: handler.flavor };
    }
    if (isResolverArgs(param, MODELS.resolverOwners)) return newTaint('http', loc, pos, { whole: true });
    if (ts.isIdentifier(param.name) && MODELS.requestNames.has(param.name.text))
      return { k: 'req', loc, validated: false };
    const instance = type === null ? null : this.packageInstance(type, unit);
    if (instance !== null) return instance;
    if (this.config.libraryMode === true && exported !== null) return newTaint('caller', loc, pos);
    return null;
  }

  /** `page: Page` with `import { Page } from 'puppeteer'`: an object of a package whose instances are tracked. */
  private packageInstance(type: string, unit: Unit): Val {
    const binding = unit.imports.get(type);
    if (binding === undefined || resolveSpecifier(unit.path, binding.spec, (p) => this.source.has(p)) !== null)
      return null;
    const module = normaliseModule(binding.spec);
    return MODELS.tracksInstances(module) ? { k: 'mod', module, path: [binding.name, '()'] } : null;
  }

  /** A DTO class with class-validator decorators (Nest's ValidationPipe validates it). */
  private isValidatedDto(name: string | null, unit: Unit): boolean {
    if (name === null) return false;
    const cls = this.resolveClass(name, unit);
    if (cls === null) return false;
    return cls.node.members.some((member) =>
      decoratorsOf(member).some((d) => MODELS.validatedDto.some((re) => re.test(decoratorName(d)?.name ?? ''))),
    );
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
    const object = MODELS.globalObject(name);
    if (object !== null) return { val: { k: 'global', name: object }, bound: false };
    if (MODELS.requestNames.has(name))
      return { val: { k: 'req', loc: this.loc(node, ctx.unit), validated: false }, bound: false };
    return { val: null, bound: false };
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
      if (next === null)
        return { k: 'mod', module: normaliseModule(target.spec), path: target.name === '*' ? [] : [target.name] };
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
        if (init !== undefined && isFunctionNode(init))
          return { k: 'fn', fn: { node: init, file: cls.file, closure: this.moduleEnv(unit), cls } };
        const assigned = this.fieldValues.get(cls.node)?.get(name);
        if (assigned !== undefined && flatten(assigned) !== null) return assigned;
        const typed = this.instanceOfType(member.type, unit);
        if (typed !== null) return typed;
        if (init !== undefined && ts.isCallExpression(init)) {
          // private readonly route = inject(ActivatedRoute): what a dependency-injection call returns.
          const injected = this.injected(init, unit);
          if (injected !== null) return injected;
        }
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

  /** `inject(ActivatedRoute)` (a model's injector): the object of that type, or null. */
  private injected(call: ts.CallExpression, unit: Unit): Val {
    const callee = skip(call.expression);
    const arg = call.arguments[0];
    if (!ts.isIdentifier(callee) || arg === undefined) return null;
    const binding = unit.imports.get(callee.text);
    if (binding === undefined || !MODELS.isInjector(normaliseModule(binding.spec), binding.name)) return null;
    const type = skip(arg);
    return ts.isIdentifier(type) ? this.instanceOfType(ts.factory.createTypeReferenceNode(type.text), unit) : null;
  }

  /**
   * What a field or parameter declared with a type holds when nothing assigned it: a request-like
   * object for a type the models name (`ActivatedRoute`), an instance of a repository class.
   */
  private instanceOfType(type: ts.TypeNode | undefined, unit: Unit): InstV | ReqV | null {
    const name = typeName(type);
    if (name === null) return null;
    const request = MODELS.requestTypes.find((t) => t.name.test(name));
    if (request !== undefined)
      return {
        k: 'req',
        loc: { file: unit.path, line: 1, endLine: 1, text: name },
        validated: false,
        flavor: request.flavor,
      };
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
      const elseOut =
        statement.elseStatement === undefined ? elseEnv : this.exec(statement.elseStatement, elseEnv, ctx);
      return Env.merge([thenOut, elseOut]);
    }
    if (ts.isBlock(statement)) {
      this.hoist(statement.statements, env, ctx);
      return this.execStatements(statement.statements, env, ctx);
    }
    if (ts.isReturnStatement(statement)) {
      if (statement.expression !== undefined)
        ctx.returns = join(ctx.returns, this.eval(statement.expression, env, ctx));
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
          ? newTaint('http', this.loc(statement.expression, ctx.unit), statement.expression.getStart(ctx.unit.sf), {
              whole: true,
            })
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
        if (ts.isPropertyDeclaration(member) && member.initializer !== undefined && !isFunctionNode(member.initializer))
          this.eval(member.initializer, env, ctx);
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
        const constant =
          ts.isStringLiteralLike(lit) ||
          ts.isNumericLiteral(lit) ||
          ts.isPropertyAccessExpression(lit) ||
          (ts.isIdentifier(lit) && /^[A-Z_][A-Z0-9_]*$/.test(lit.text));
        if (subject !== null && constant)
          this.refine(
            entry,
            [{ path: subject, node: statement.expression, clean: ALL_KINDS_MASK, validated: true }],
            ctx,
          );
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
      this.bindPattern(
        element.name,
        part ?? (element.initializer === undefined ? null : this.eval(element.initializer, env, ctx)),
        env,
        ctx,
      );
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
    } else if (MODELS.schemaMethod(name) === 'parse' && ts.isPropertyAccessExpression(callee)) {
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
        env.declare(key, {
          k: 'guard',
          whenTrue: [...markers].map((marker) => ({ ...refinement, marker })),
          whenFalse: [],
        });
        if (markers.has('relative-start') && markers.has('not-protocol-relative')) {
          this.applyClean(env, refinement.path, refinement.node, URL_MASK, false, ctx, 0);
        }
        continue;
      }
      this.applyClean(
        env,
        refinement.path,
        refinement.node,
        refinement.clean,
        refinement.validated,
        ctx,
        0,
        refinement.trusted === true,
      );
    }
  }

  /**
   * `event.origin === 'https://app.example.com'`, `ALLOWED.includes(event.origin)`: a check of the
   * field a request model names as its sender (`trustedBy`) makes the whole object trusted.
   */
  private senderCheck(subject: ts.Expression, other: ts.Expression | null, env: Env, ctx: Ctx): Cond | null {
    const expr = skip(subject);
    if (!ts.isPropertyAccessExpression(expr)) return null;
    const base = this.eval(expr.expression, env, ctx);
    if (base === null || base.k !== 'req' || MODELS.request(base.flavor ?? 'http')?.trustedBy !== expr.name.text)
      return null;
    if (other !== null && flatten(this.eval(other, env, ctx)) !== null) return null;
    const path = pathText(expr.expression);
    return path === null
      ? null
      : { t: [{ path, node: expr.expression, clean: 0, validated: true, trusted: true }], f: [] };
  }

  private applyClean(
    env: Env,
    path: string,
    node: ts.Expression,
    mask: number,
    validated: boolean,
    ctx: Ctx,
    depth: number,
    trusted = false,
  ): void {
    const current = this.eval(node, env, ctx);
    if (trusted && current !== null && current.k === 'req') {
      env.declare(path, { ...current, trusted: true });
      return;
    }
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
      return path !== null && flatten(holder) === null
        ? { t: [{ path, node: expr.left, clean: ALL_KINDS_MASK, validated: true }], f: [] }
        : NO_COND;
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
      const positive =
        this.equalityCond(skip(expr.left), skip(expr.right), env, ctx) ??
        this.equalityCond(skip(expr.right), skip(expr.left), env, ctx);
      if (positive === null) return NO_COND;
      return equality ? positive : { t: positive.f, f: positive.t };
    }
    // x.indexOf(v) > -1, >= 0 (allowlist lookups written with indexOf)
    if (op === ts.SyntaxKind.GreaterThanToken || op === ts.SyntaxKind.GreaterThanEqualsToken) {
      const left = skip(expr.left);
      if (
        ts.isCallExpression(left) &&
        ts.isPropertyAccessExpression(left.expression) &&
        left.expression.name.text === 'indexOf'
      ) {
        return this.membershipCond(left, env, ctx);
      }
    }
    return NO_COND;
  }

  /** `subject === other` when true: what it proves. Null when the shape is not a check. */
  private equalityCond(subject: ts.Expression, other: ts.Expression, env: Env, ctx: Ctx): Cond | null {
    const sender = this.senderCheck(subject, other, env, ctx);
    if (sender !== null) return sender;
    if (ts.isTypeOfExpression(subject) && ts.isStringLiteralLike(other)) {
      const path = pathText(subject.expression);
      if (path !== null && ['number', 'boolean', 'bigint'].includes(other.text)) {
        return { t: [{ path, node: subject.expression, clean: ALL_KINDS_MASK, validated: true }], f: [] };
      }
      if (path !== null && other.text === 'string')
        return { t: [{ path, node: subject.expression, clean: kindBit('nosql'), validated: false }], f: [] };
      return NO_COND;
    }
    if (
      ts.isCallExpression(subject) &&
      ts.isPropertyAccessExpression(subject.expression) &&
      subject.expression.name.text === 'indexOf'
    ) {
      const lit = skip(other);
      const minusOne =
        ts.isPrefixUnaryExpression(lit) &&
        lit.operator === ts.SyntaxKind.MinusToken &&
        literalText(lit.operand) === '1';
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
      const refinements = this.urlHostRefinements(subject, env, ctx);
      return refinements.length === 0 ? null : { t: refinements, f: [] };
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

  /**
   * A check of a parsed URL's host (`new URL(x).hostname`, `u.origin`) vouches for the URL as a
   * redirect or request target, and for the text it was parsed from (`const u = new URL(input)`),
   * so a check inside a helper carries over to the helper's parameter.
   */
  private urlHostRefinements(hostAccess: ts.PropertyAccessExpression, env: Env, ctx: Ctx): Refinement[] {
    const base = skip(hostAccess.expression);
    const target = ts.isNewExpression(base) && base.arguments?.[0] !== undefined ? base.arguments[0] : base;
    const path = pathText(target);
    if (path === null) return [];
    const out: Refinement[] = [{ path, node: target, clean: URL_MASK, validated: true }];
    const parsed = this.eval(target, env, ctx);
    if (isTaint(parsed) && parsed.derivedFrom !== null && parsed.derivedFrom.how === 'url') {
      out.push({ path: parsed.derivedFrom.path, node: parsed.derivedFrom.node, clean: URL_MASK, validated: true });
    }
    return out;
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
      if (
        ts.isCallExpression(searched) &&
        ts.isPropertyAccessExpression(searched.expression) &&
        searched.expression.name.text === 'split'
      )
        searched = searched.expression.expression;
      const path = pathText(searched);
      if (path !== null && needle !== null && ['..', '../', '/', '\\', '..\\'].includes(needle)) {
        return { t: [], f: [{ path, node: searched, clean: PATH_BIT, validated: false }] };
      }
      return NO_COND;
    }
    const sender = this.senderCheck(arg, null, env, ctx);
    if (sender !== null) return sender;
    const refinements: Refinement[] = [];
    const path = pathText(arg);
    if (path !== null) refinements.push({ path, node: arg, clean: ALL_KINDS_MASK, validated: true });
    // ALLOWED_HOSTS.includes(url.hostname) also vouches for the URL it was parsed from.
    const inner = skip(arg);
    if (ts.isPropertyAccessExpression(inner) && ['host', 'hostname', 'origin'].includes(inner.name.text))
      refinements.push(...this.urlHostRefinements(inner, env, ctx));
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
        if (path !== null && target !== undefined && flatten(holder) === null)
          return { t: [{ path, node: target, clean: ALL_KINDS_MASK, validated: true }], f: [] };
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
      if (viaMethod === WEAK_CHECK) return NO_COND;
      if (viaMethod !== null) return viaMethod;
      if (isValidatorName(method) && arg !== undefined) return this.validatorCond(call, method);
      return NO_COND;
    }
    if (ts.isIdentifier(callee) && arg !== undefined) {
      const path = pathText(arg);
      if (path === null) return NO_COND;
      if (callee.text === 'isNaN') return { t: [], f: [{ path, node: arg, clean: ALL_KINDS_MASK, validated: true }] };
      const viaFunction = this.functionGuard(call, env, ctx);
      if (viaFunction === WEAK_CHECK) return NO_COND;
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
    const result = this.invoke(
      target.fn,
      args,
      target.fn.cls === null ? null : { k: 'inst', cls: target.fn.cls },
      null,
    );
    const params = target.fn.node.parameters.map((p) => (ts.isIdentifier(p.name) ? p.name.text : null));
    if (result === null || result.k !== 'guard') return searchesParameter(target.fn.node, params) ? WEAK_CHECK : null;
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
    const mask =
      /url|uri/i.test(name) && !/relative|local|internal|allowed|safe|trusted/i.test(name)
        ? maskOf(['business', 'nosql', 'mass-assignment'])
        : ALL_KINDS_MASK;
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
    const leading = ts.isBinaryExpression(argNode)
      ? literalText(skip(argNode.left))
      : ts.isTemplateExpression(argNode)
        ? argNode.head.text
        : lit;
    // !path.relative(base, target).startsWith('..'): the target stays inside base.
    if (leading !== null && leading.startsWith('..') && isTaint(subject) && subject.derivedFrom?.how === 'relative') {
      return {
        t: [],
        f: [{ path: subject.derivedFrom.path, node: subject.derivedFrom.node, clean: PATH_BIT, validated: true }],
      };
    }
    const path = pathText(subjectNode);
    if (path === null) return NO_COND;
    if (leading !== null && leading.startsWith('..')) return NO_COND;
    if (lit === '/')
      return { t: [{ path, node: subjectNode, clean: 0, validated: false, marker: 'relative-start' }], f: [] };
    if (lit === '//' || lit === '/\\')
      return { t: [], f: [{ path, node: subjectNode, clean: 0, validated: false, marker: 'not-protocol-relative' }] };
    if (lit !== null && /^https?:\/\/[^/]+\//.test(lit))
      return { t: [{ path, node: subjectNode, clean: URL_MASK, validated: true }], f: [] };
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
      // process.env[name]: a computed key of a global whose every property is a source.
      if (obj !== null && obj.k === 'global') return this.globalProp(obj.name, '*', expr, ctx);
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
      if (expr.operator === ts.SyntaxKind.ExclamationToken && operand !== null && operand.k === 'guard')
        return { k: 'guard', whenTrue: operand.whenFalse, whenFalse: operand.whenTrue };
      if (expr.operator === ts.SyntaxKind.ExclamationToken) return this.guardOf(expr, env, ctx);
      return null;
    }
    if (
      ts.isPostfixUnaryExpression(expr) ||
      ts.isTypeOfExpression(expr) ||
      ts.isVoidExpression(expr) ||
      ts.isDeleteExpression(expr)
    ) {
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
    if (ts.isClassExpression(expr))
      return { k: 'cls', cls: { node: expr, file: ctx.unit.path, name: expr.name?.text ?? '(anonymous)' } };
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

  private evalAccess(
    expr: ts.PropertyAccessExpression | ts.ElementAccessExpression,
    key: string,
    env: Env,
    ctx: Ctx,
  ): Val {
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
          return {
            ...obj,
            source: { ...obj.source, text: node.getText(ctx.unit.sf).replace(/\s+/g, ' ').slice(0, 120) },
            whole: false,
            prefix: '',
          };
        }
        return { ...obj, whole: false, prefix: obj.prefix === '' ? '' : null };
      case 'req': {
        const flavor = obj.flavor ?? 'http';
        const model = MODELS.request(flavor);
        if (model === null || obj.trusted === true) return null;
        if (model.nestedFields.has(key)) return obj;
        if (!MODELS.isInputField(flavor, key)) return null;
        return newTaint(model.origin, this.loc(node, ctx.unit), node.getStart(ctx.unit.sf), {
          validated: obj.validated,
          scalar: model.scalarFields.has(key) || obj.validated,
          whole: model.wholeFields.has(key),
        });
      }
      case 'record':
        return key === 'dataValues' || key === '_doc' ? obj : this.readStoredField(obj.store, key, node, ctx);
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

  /** A property of a global object: another global (`window.location`) or a source (`location.hash`, `process.argv`). */
  private globalProp(name: GlobalObject, key: string, node: ts.Node, ctx: Ctx): Val {
    const yields = MODELS.globalProperty(name, key);
    if (yields === null) return null;
    if ('global' in yields) return { k: 'global', name: yields.global };
    return newTaint(yields.origin, this.loc(node, ctx.unit), node.getStart(ctx.unit.sf), { scalar: true });
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
        if (key !== null)
          fields.set(key, { k: 'fn', fn: { node: property, file: ctx.unit.path, closure: env, cls: ctx.cls } });
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
    return {
      ...out,
      html: out.html || containsHtml(constant),
      built: out.built || constant.trim() !== '',
      whole: false,
      scalar: true,
    };
  }

  private evalTagged(expr: ts.TaggedTemplateExpression, env: Env, ctx: Ctx): Val {
    const tag = expr.tag.getText(ctx.unit.sf);
    const template = expr.template;
    const parts = ts.isTemplateExpression(template)
      ? template.templateSpans.map((span) => this.eval(span.expression, env, ctx))
      : [];
    if (SAFE_TEMPLATE_TAGS.test(tag)) return null;
    return parts.reduce<Val>((acc, part) => join(acc, flatten(part)), null);
  }

  private evalBinary(expr: ts.BinaryExpression, env: Env, ctx: Ctx): Val {
    const op = expr.operatorToken.kind;
    if (
      op === ts.SyntaxKind.EqualsToken ||
      op === ts.SyntaxKind.PlusEqualsToken ||
      op === ts.SyntaxKind.QuestionQuestionEqualsToken ||
      op === ts.SyntaxKind.BarBarEqualsToken
    ) {
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
    if (expr.operatorToken.kind === ts.SyntaxKind.PlusEqualsToken)
      val = concat(this.eval(target, env, ctx), target, val, expr.right);
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
    } else if (
      ts.isPropertyAccessExpression(target) &&
      target.expression.kind === ts.SyntaxKind.ThisKeyword &&
      ctx.cls !== null
    ) {
      this.storeField(ctx.cls, target.name.text, val);
    } else if (ts.isPropertyAccessExpression(target) && ts.isIdentifier(target.expression)) {
      const holder = env.lookup(target.expression.text);
      // user.bio = req.body.bio on a stored record: the field now holds input.
      const written = flatten(val);
      if (holder.found && holder.val !== null && holder.val.k === 'record' && written !== null)
        this.noteWrite(holder.val.store, target.name.text, written, this.loc(expr, ctx.unit));
      if (holder.found && (holder.val === null || holder.val.k === 'obj')) {
        const base = holder.val ?? emptyObj();
        env.assign(target.expression.text, { ...base, fields: new Map([...base.fields, [target.name.text, val]]) });
      }
    } else if (ts.isElementAccessExpression(target) && ts.isIdentifier(target.expression)) {
      const holder = env.lookup(target.expression.text);
      if (holder.found && holder.val !== null && holder.val.k === 'obj')
        env.assign(target.expression.text, { ...holder.val, rest: join(holder.val.rest, val) });
    }
    return val;
  }

  /**
   * Assignments that are sinks (`el.innerHTML = x`, `location.href = x`, `ctx.body = html`) and
   * assignments that register a callback with inputs (`ws.onmessage = (e) => …`). A bare `location = x`
   * assigns the window's property.
   */
  private assignmentSinks(target: ts.Expression, val: Val, node: ts.Node, env: Env, ctx: Ctx): void {
    let property: string;
    let baseText: string;
    let base: () => Val;
    if (ts.isPropertyAccessExpression(target)) {
      property = target.name.text;
      baseText = pathText(target.expression) ?? '';
      base = () => this.eval(target.expression, env, ctx);
    } else if (ts.isIdentifier(target) && !env.lookup(target.text).found) {
      property = target.text;
      baseText = 'window';
      base = () => ({ k: 'global', name: 'window' });
    } else {
      return;
    }
    const label = pathText(target) ?? property;
    for (const rule of MODELS.assignmentSinkRules(property)) {
      if (!ts.isPropertyAccessExpression(target) && rule.on?.includes('window') !== true) continue;
      if (rule.on !== undefined || rule.receiver !== undefined) {
        const baseVal = rule.on === undefined ? null : base();
        const onGlobal =
          baseVal !== null && baseVal.k === 'global' && rule.on?.includes(baseVal.name as BrowserGlobal) === true;
        if (!onGlobal && rule.receiver?.test(baseText) !== true) continue;
      }
      const taint = taintFor(val, rule.kind);
      if (taint === null) continue;
      if (rule.htmlOnly === true && !taint.html && ctx.contentTypes.get(baseText) !== 'html') continue;
      this.flow(rule.kind, this.loc(node, ctx.unit), label, taint);
    }
    if (val !== null && val.k === 'fn') {
      for (const rule of MODELS.assignedCallbackRules(property)) {
        this.invokeInline(
          val,
          this.callbackInputs(rule, val, { k: 'req', loc: this.loc(node, ctx.unit), validated: false }, node, ctx),
          env,
          ctx,
        );
        break;
      }
    }
  }

  private evalJsx(node: ts.JsxElement | ts.JsxSelfClosingElement | ts.JsxFragment, env: Env, ctx: Ctx): void {
    const visit = (child: ts.Node): void => {
      if (
        ts.isJsxAttribute(child) &&
        child.initializer !== undefined &&
        ts.isJsxExpression(child.initializer) &&
        child.initializer.expression !== undefined
      ) {
        const val = this.eval(child.initializer.expression, env, ctx);
        const rules = MODELS.jsxSinkRules(propName(child.name as ts.Identifier) ?? '');
        for (const rule of rules) {
          const held =
            rule.field !== undefined && val !== null && val.k === 'obj'
              ? (val.fields.get(rule.field) ?? val.rest)
              : val;
          const taint = taintFor(held, rule.kind);
          if (taint !== null) this.flow(rule.kind, this.loc(child, ctx.unit), rule.attribute, taint);
        }
        if (rules.length === 0 && val !== null && val.k === 'fn') {
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
      const name = ts.isPropertyAccessExpression(expr)
        ? expr.name.text
        : (literalText(skip(expr.argumentExpression)) ?? '');
      const receiverVal = this.eval(expr.expression, env, ctx);
      const path = pathText(expr);
      const refined = path === null ? null : env.lookup(path);
      const val = refined?.found === true ? refined.val : this.getProp(receiverVal, name, expr, env, ctx);
      return {
        name,
        receiverText: expr.expression.getText(ctx.unit.sf),
        root: rootOf(expr.expression),
        receiverVal,
        val,
        free: false,
        bound: true,
        text,
      };
    }
    if (ts.isIdentifier(expr)) {
      const { val, bound } = this.lookupIdent(expr.text, env, ctx, expr);
      return { name: expr.text, receiverText: '', root: '', receiverVal: null, val, free: true, bound, text };
    }
    return {
      name: '',
      receiverText: '',
      root: '',
      receiverVal: null,
      val: this.eval(expr, env, ctx),
      free: false,
      bound: true,
      text,
    };
  }

  private evalCall(node: ts.CallExpression, env: Env, ctx: Ctx): Val {
    if (node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const spec = node.arguments[0] === undefined ? null : this.eval(node.arguments[0], env, ctx);
      this.report('code', spec, this.loc(node, ctx.unit), 'import()');
      // `(await import('pug')).default`: the module, as a static import would give it.
      const literal = literalText(node.arguments[0] === undefined ? undefined : skip(node.arguments[0]));
      return literal === null ? null : this.resolveImport({ spec: literal, name: '*' }, ctx.unit);
    }
    const callee = this.describeCallee(node.expression, env, ctx);
    const argNodes = node.arguments;
    const args = argNodes.map((arg) => this.eval(arg, env, ctx));
    const loc = this.loc(node, ctx.unit);
    const resolved = callee.val !== null && callee.val.k === 'fn' ? callee.val : null;

    if (resolved === null) this.sinks(callee, this.callView(callee, args, argNodes, node, ctx), loc, false);
    this.businessSink(callee, args, loc, resolved, ctx);
    this.noteContentType(callee, argNodes, ctx);

    const result = this.callResult(node, callee, args, argNodes, loc, resolved, env, ctx);
    this.analyseCallbacks(node, callee, args, argNodes, env, ctx);
    if (result === null && (SAFE_RESULT_METHODS.has(callee.name) || isValidatorName(callee.name)))
      return this.guardOf(node, env, ctx);
    return result;
  }

  private callResult(
    node: ts.CallExpression,
    c: Callee,
    args: readonly Val[],
    argNodes: readonly ts.Expression[],
    loc: Loc,
    resolved: FnV | null,
    env: Env,
    ctx: Ctx,
  ): Val {
    const first = args[0] ?? null;
    // A package's own sanitiser rule wins over what its local name suggests (`sanitize` from sanitize-filename cleans paths only).
    const mod = this.moduleOf(c);
    const packaged = mod === null ? null : MODELS.sanitiser(mod.module, mod.member);
    if (packaged !== null) return cleanVal(flatten(args[packaged.arg] ?? null), packaged.mask, false);
    const mask = sanitiserKinds(c.name, c.receiverText);
    if (mask !== 0)
      return cleanVal(
        join(flatten(first), isTaint(c.receiverVal) && argNodes.length === 0 ? c.receiverVal : null),
        mask,
        false,
      );
    if (c.free && NUMERIC_FUNCTIONS.has(c.name) && !c.bound) return null;
    if (
      c.receiverText === 'Math' ||
      c.receiverText === 'Number' ||
      c.receiverText === 'crypto' ||
      c.name === 'randomUUID' ||
      c.name === 'hash' ||
      c.name === 'compare'
    )
      return null;

    if (resolved !== null) {
      const thisVal =
        c.receiverVal !== null && c.receiverVal.k === 'inst'
          ? c.receiverVal
          : resolved.fn.cls === null
            ? null
            : ({ k: 'inst', cls: resolved.fn.cls } as InstV);
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
    const stored = this.storeCall(c, args, argNodes, loc, ctx);
    if (stored !== undefined) return stored;
    if (mod !== null) return this.moduleCall(mod, args, argNodes);
    if (receiver !== null && receiver.k === 'req') {
      const flavor = receiver.flavor ?? 'http';
      const model = MODELS.request(flavor);
      if (model === null || receiver.trusted === true) return null;
      if (model.methods.has(c.name) || MODELS.isInputField(flavor, c.name)) {
        return newTaint(model.origin, loc, node.getStart(ctx.unit.sf), {
          validated: receiver.validated || model.validMethods.has(c.name),
          whole: model.wholeMethods.has(c.name),
          scalar: model.scalarMethods.has(c.name),
        });
      }
      return model.selfMethods.has(c.name) ? receiver : null;
    }
    if (MODELS.requestFactories.has(c.name)) return { k: 'req', loc, validated: false };
    if (isTaint(receiver)) return this.taintedMethod(receiver, c.name, args, argNodes, env, ctx);
    if (c.val !== null && c.val.k === 'taint') return c.val;
    if (receiver !== null && receiver.k === 'obj') return this.objectMethod(receiver, c.name, args, argNodes, env, ctx);
    if (receiver !== null && receiver.k === 'record') return this.recordsMethod(receiver, c.name, args, env, ctx);
    if (receiver !== null && receiver.k === 'global') return this.globalProp(receiver.name, `${c.name}()`, node, ctx);
    if (c.val !== null && c.val.k === 'cls') return { k: 'inst', cls: c.val.cls };
    if (c.free && (PASS_THROUGH_FUNCTIONS.has(c.name) || c.name === 'promisify')) {
      if (c.name === 'promisify') return first;
      const joined = args.reduce<Val>((acc, a) => join(acc, flatten(a)), null);
      return isTaint(joined) ? { ...joined, scalar: c.name === 'String' || joined.scalar } : joined;
    }
    if (c.receiverText === 'JSON')
      return c.name === 'stringify' ? mapTaint(flatten(first), (t) => ({ ...t, scalar: true })) : first;
    if (c.receiverText === 'Object' || c.receiverText === 'Array' || c.receiverText === 'Buffer') {
      if (c.name === 'assign') return args.reduce<Val>((acc, a) => join(acc, a), null);
      if (
        c.name === 'keys' ||
        c.name === 'values' ||
        c.name === 'entries' ||
        c.name === 'from' ||
        c.name === 'of' ||
        c.name === 'fromEntries'
      ) {
        return args.reduce<Val>((acc, a) => join(acc, flatten(a)), null);
      }
      return null;
    }
    if (c.receiverText === 'String' && c.name === 'raw')
      return args.reduce<Val>((acc, a) => join(acc, flatten(a)), null);
    // 'SELECT … {id}'.replace('{id}', input), base.concat(input): the text now carries the input.
    if (
      ['replace', 'replaceAll', 'concat', 'padStart', 'padEnd'].includes(c.name) &&
      (receiver === null || receiver.k === 'regex')
    ) {
      const joined = args
        .slice(c.name.startsWith('replace') ? 1 : 0)
        .reduce<Val>((acc, a) => join(acc, flatten(a)), null);
      return isTaint(joined) ? { ...joined, prefix: null, built: true, scalar: true } : joined;
    }
    return null;
  }

  /** The package member a callee stands for (`fs.readFile` → fs/readFile), an unbound alias, or null. */
  private moduleOf(c: Callee): ModuleRef | null {
    if (c.val !== null && c.val.k === 'mod') {
      const path = c.val.path.filter((p) => p !== 'promises' && p !== 'default');
      const last = path.at(-1);
      return {
        module: c.val.module,
        member: last === undefined || last === '()' ? '' : last,
        instance: path.includes('()'),
        path: c.val.path,
      };
    }
    if (c.free && !c.bound) {
      const module = MODELS.unboundAlias(c.name);
      if (module !== null) return { module, member: c.name, instance: false, path: [c.name] };
    }
    return null;
  }

  /** What a package function returns: a schema, a sanitised value, taint passed through, a tracked object, or nothing. */
  private moduleCall(mod: ModuleRef, args: readonly Val[], argNodes: readonly ts.Expression[]): Val {
    const schemas = MODELS.schemaLibrary(mod.module);
    if (schemas !== null && !mod.instance) return this.schemaBuild(schemas, mod, args);
    const sanitiser = MODELS.sanitiser(mod.module, mod.member);
    if (sanitiser !== null) return cleanVal(flatten(args[sanitiser.arg] ?? null), sanitiser.mask, false);
    const effect = MODELS.passEffect(mod.module, mod.member);
    if (effect !== null) return this.passThrough(effect, mod, args, argNodes);
    return MODELS.tracksInstances(mod.module) ? { k: 'mod', module: mod.module, path: [...mod.path, '()'] } : null;
  }

  private passThrough(
    effect: PassEffect,
    mod: ModuleRef,
    args: readonly Val[],
    argNodes: readonly ts.Expression[],
  ): Val {
    const first = args[0] ?? null;
    const joined = (): Val => args.reduce<Val>((acc, a) => join(acc, flatten(a)), null);
    switch (effect) {
      case 'clean-path':
        return cleanVal(flatten(first), PATH_BIT, false);
      case 'normalise': {
        const all = joined();
        if (!isTaint(all)) return all;
        const taintedIndex = args.findIndex((a) => flatten(a) !== null);
        const node = argNodes[taintedIndex];
        const path = node === undefined ? null : pathText(node);
        return {
          ...all,
          normalized: true,
          prefix: null,
          derivedFrom: path === null || node === undefined ? all.derivedFrom : { path, node, how: 'resolve' },
        };
      }
      case 'relative': {
        const taint = flatten(args[1] ?? null);
        const targetNode = argNodes[1];
        if (taint === null) return null;
        const path = targetNode === undefined ? null : pathText(targetNode);
        // path.relative(base, path.resolve(base, input)): the check is on the input the inner call resolved.
        const inner = taint.derivedFrom === null ? null : { ...taint.derivedFrom, how: 'relative' as const };
        return {
          ...taint,
          prefix: null,
          derivedFrom: path === null || targetNode === undefined ? inner : { path, node: targetNode, how: 'relative' },
        };
      }
      case 'first':
        return flatten(first);
      case 'url': {
        // url.parse(input), url.resolve(base, input): checks on the parsed host vouch for the input.
        const taint = flatten(args[mod.member === 'resolve' ? 1 : 0] ?? null);
        const node = argNodes[0];
        const path = node === undefined ? null : pathText(node);
        return taint === null
          ? null
          : { ...taint, derivedFrom: path === null || node === undefined ? null : { path, node, how: 'url' } };
      }
      case 'identity':
        return first;
      case 'numeric':
        return null;
      case 'all':
        return joined();
    }
  }

  private taintedMethod(
    receiver: TaintV,
    name: string,
    args: readonly Val[],
    argNodes: readonly ts.Expression[],
    env: Env,
    ctx: Ctx,
  ): Val {
    if (SAFE_RESULT_METHODS.has(name)) return null;
    if (name === 'replace' || name === 'replaceAll') {
      const pattern = args[0] ?? null;
      const replacement = literalText(argNodes[1] === undefined ? undefined : skip(argNodes[1]));
      if (pattern !== null && pattern.k === 'regex') {
        const text = pattern.literal;
        // path.normalize(p).replace(/^(\.\.(\/|\\|$))+/, ''): after normalising, every `..` is leading.
        if (receiver.normalized && /^\/\^\((\?:)?\\\.\\\./.test(text)) return cleanVal(receiver, PATH_BIT, false);
        const mask = replaceSanitiserMask(
          patternOf(text),
          text.slice(text.lastIndexOf('/') + 1) + (name === 'replaceAll' ? 'g' : ''),
          replacement,
        );
        if (mask !== 0) return cleanVal(receiver, mask, false);
      }
      return join({ ...receiver, prefix: null }, flatten(args[1] ?? null));
    }
    const callback = args[0];
    if ((name === 'map' || name === 'flatMap') && callback !== null && callback !== undefined && callback.k === 'fn') {
      const mapped = this.invokeInline(callback, [receiver], env, ctx);
      return mapped === null ? null : flatten(mapped);
    }
    if (
      (name === 'map' || name === 'flatMap') &&
      argNodes[0] !== undefined &&
      ts.isIdentifier(skip(argNodes[0])) &&
      NUMERIC_FUNCTIONS.has((skip(argNodes[0]) as ts.Identifier).text)
    )
      return null;
    if (name === 'concat' || name === 'padStart' || name === 'padEnd')
      return args.reduce<Val>((acc, a) => join(acc, flatten(a)), {
        ...receiver,
        prefix: name === 'concat' ? receiver.prefix : null,
      });
    return {
      ...receiver,
      prefix: ['trim', 'trimEnd', 'toLowerCase', 'toUpperCase', 'toString', 'valueOf', 'normalize'].includes(name)
        ? receiver.prefix
        : null,
    };
  }

  private objectMethod(
    receiver: ObjV,
    name: string,
    args: readonly Val[],
    argNodes: readonly ts.Expression[],
    env: Env,
    ctx: Ctx,
  ): Val {
    const field = receiver.fields.get(name);
    if (field !== undefined && field !== null && field.k === 'fn') return this.invokeInline(field, args, env, ctx);
    if (SAFE_RESULT_METHODS.has(name)) return null;
    const elements = elementOf(receiver);
    const callback = args[0];
    if (
      (name === 'map' || name === 'flatMap') &&
      argNodes[0] !== undefined &&
      ts.isIdentifier(skip(argNodes[0])) &&
      NUMERIC_FUNCTIONS.has((skip(argNodes[0]) as ts.Identifier).text)
    )
      return null;
    if ((name === 'map' || name === 'flatMap') && callback !== null && callback !== undefined && callback.k === 'fn') {
      const mapped = this.invokeInline(callback, [elements], env, ctx);
      return { k: 'obj', fields: new Map(), rest: mapped, elems: null, literal: null };
    }
    if (
      [
        'join',
        'concat',
        'toString',
        'flat',
        'slice',
        'filter',
        'values',
        'reverse',
        'sort',
        'get',
        'at',
        'pop',
        'shift',
        'find',
      ].includes(name)
    ) {
      if (name === 'join' || name === 'toString') {
        const taint = flatten(receiver);
        return taint === null ? null : { ...taint, prefix: null, built: true, scalar: true };
      }
      if (name === 'get' || name === 'at' || name === 'pop' || name === 'shift' || name === 'find') return elements;
      return receiver;
    }
    return null;
  }

  /** A validation library's builder (`z.object({...})`, `Joi.number()`): what the schema lets through. */
  /** Array methods on a list of stored records (`rows.map((r) => r.body)`): each element is a record. */
  private recordsMethod(receiver: RecordV, name: string, args: readonly Val[], env: Env, ctx: Ctx): Val {
    const callback = args[0] ?? null;
    if ((name === 'map' || name === 'flatMap') && callback !== null && callback.k === 'fn')
      return {
        k: 'obj',
        fields: new Map(),
        rest: this.invokeInline(callback, [receiver], env, ctx),
        elems: null,
        literal: null,
      };
    return ['filter', 'slice', 'sort', 'reverse', 'find', 'at', 'pop', 'shift', 'concat', 'flat'].includes(name)
      ? receiver
      : null;
  }

  private schemaBuild(library: SchemaLibrary, mod: ModuleRef, args: readonly Val[]): Val {
    switch (library.build[mod.member] ?? 'any') {
      case 'safe':
        return { k: 'schema', safety: { kind: 'safe' } };
      case 'string':
        return { k: 'schema', safety: { kind: 'string' } };
      case 'object':
      case 'loose-object': {
        const shape = args[0];
        const fields = new Map<string, Safety>();
        if (shape !== null && shape !== undefined && shape.k === 'obj') {
          for (const [key, val] of shape.fields)
            fields.set(key, val !== null && val.k === 'schema' ? val.safety : { kind: 'any' });
        }
        return {
          k: 'schema',
          safety: { kind: 'object', fields, passthrough: library.build[mod.member] === 'loose-object' },
        };
      }
      case 'array':
        return {
          k: 'schema',
          safety: {
            kind: 'array',
            elem:
              args[0] !== null && args[0] !== undefined && args[0].k === 'schema' ? args[0].safety : { kind: 'any' },
          },
        };
      case 'union': {
        const options = args[0];
        const parts = options !== null && options !== undefined && options.k === 'obj' ? (options.elems ?? []) : [];
        const allSafe =
          parts.length > 0 && parts.every((p) => p !== null && p.k === 'schema' && p.safety.kind === 'safe');
        return { k: 'schema', safety: allSafe ? { kind: 'safe' } : { kind: 'any' } };
      }
      case 'coerce':
        // z.coerce.number(): the same builders, one level down.
        return { k: 'mod', module: mod.module, path: [] };
      case 'any':
        return { k: 'schema', safety: { kind: 'any' } };
    }
  }

  /** A method on a schema: parsing input with it, or a narrower schema (`.uuid()`, `.regex(…)`, `.extend(…)`). */
  private schemaCall(schema: SchemaV, name: string, args: readonly Val[], argNodes: readonly ts.Expression[]): Val {
    const input = args[0] ?? null;
    switch (MODELS.schemaMethod(name)) {
      case 'parse':
        return applySafety(schema.safety, input);
      case 'safe-parse':
        return {
          k: 'obj',
          fields: new Map([
            ['data', applySafety(schema.safety, input)],
            ['value', applySafety(schema.safety, input)],
          ]),
          rest: null,
          elems: null,
          literal: null,
        };
      case 'narrow':
        return {
          k: 'schema',
          safety: schema.safety.kind === 'string' || schema.safety.kind === 'any' ? { kind: 'safe' } : schema.safety,
        };
      case 'regex': {
        const re = argNodes[0] === undefined ? undefined : skip(argNodes[0]);
        const mask = re !== undefined && ts.isRegularExpressionLiteral(re) ? testGuardMask(patternOf(re.text)) : 0;
        return mask === ALL_KINDS_MASK ? { k: 'schema', safety: { kind: 'safe' } } : schema;
      }
      case 'passthrough':
        return schema.safety.kind === 'object'
          ? { k: 'schema', safety: { ...schema.safety, passthrough: true } }
          : schema;
      case 'extend': {
        const extra = args[0];
        if (schema.safety.kind !== 'object') return schema;
        const fields = new Map(schema.safety.fields);
        if (extra !== null && extra !== undefined && extra.k === 'obj')
          for (const [key, val] of extra.fields)
            fields.set(key, val !== null && val.k === 'schema' ? val.safety : { kind: 'any' });
        if (extra !== null && extra !== undefined && extra.k === 'schema' && extra.safety.kind === 'object')
          for (const [key, safety] of extra.safety.fields) fields.set(key, safety);
        return { k: 'schema', safety: { ...schema.safety, fields } };
      }
      case null:
        return schema;
    }
  }

  /**
   * Analyses callbacks with the inputs they will receive: route handlers and servers get a request,
   * socket handlers messages, window message listeners a message event (callback-source rules of
   * the models); inline callbacks of array and promise methods their elements; other inline
   * functions guessed parameters.
   */
  private analyseCallbacks(
    node: ts.CallExpression,
    c: Callee,
    args: readonly Val[],
    argNodes: readonly ts.Expression[],
    env: Env,
    ctx: Ctx,
  ): void {
    const rule = this.callbackRule(c, argNodes);
    const loc = this.loc(node, ctx.unit);
    const validators = rule?.validators;
    const validated =
      validators !== undefined &&
      argNodes.some((arg) => ts.isCallExpression(skip(arg)) && validators.test(arg.getText(ctx.unit.sf)));
    const request: ReqV = { k: 'req', loc, validated };
    const receiver = c.receiverVal;
    const elementMethod =
      ELEMENT_CALLBACK_METHODS.has(c.name) &&
      receiver !== null &&
      (receiver.k === 'taint' || receiver.k === 'obj' || receiver.k === 'record');
    args.forEach((arg, index) => {
      const argNode = argNodes[index];
      if (arg === null || argNode === undefined) return;
      if (arg.k === 'obj' && rule?.route !== undefined && arg.literal !== null) {
        // fastify.route({ handler, schema }), server.route({ handler }): a route with a schema is validated by the framework.
        const handler = arg.fields.get('handler');
        const withSchema = arg.fields.has('schema');
        if (handler !== undefined && handler !== null && handler.k === 'fn')
          this.invokeInline(handler, [{ ...request, validated: withSchema }], env, ctx);
        return;
      }
      if (arg.k !== 'fn') return;
      const inline = isFunctionNode(skip(argNode));
      if (rule !== null) {
        this.invokeInline(arg, this.callbackInputs(rule, arg, request, node, ctx), env, ctx);
        return;
      }
      // A function passed by name is analysed where it is declared, with guessed parameters.
      if (!inline) return;
      if (elementMethod) {
        const element = c.name === 'then' || c.name === 'finally' ? receiver : elementOf(receiver);
        this.invokeInline(arg, c.name === 'reduce' || c.name === 'reduceRight' ? [null, element] : [element], env, ctx);
      } else if (!this.inlineDone.has(arg.fn.node)) {
        const unit = this.source.unit(arg.fn.file);
        const guessed = unit === null ? [] : arg.fn.node.parameters.map((p) => this.guessParam(p, unit));
        this.invokeInline(arg, guessed, env, ctx);
      }
    });
  }

  /** The callback-source rule a registration matches (`app.get('/x', h)`, `socket.on('chat', h)`), or null. */
  private callbackRule(c: Callee, argNodes: readonly ts.Expression[]): CallbackSourceRule | null {
    const onRequest = c.receiverVal !== null && c.receiverVal.k === 'req';
    const first = argNodes[0] === undefined ? undefined : skip(argNodes[0]);
    const event = literalText(first);
    for (const rule of MODELS.callbackRules(c.name)) {
      if ((rule.onRequest === true) !== onRequest) continue;
      if (rule.receiver !== undefined && !rule.receiver.test(c.receiverText)) continue;
      if (rule.event !== undefined && (event === null || !rule.event.test(event))) continue;
      if (rule.notEvent !== undefined && (event === null || rule.notEvent.test(event))) continue;
      if (
        rule.route !== undefined &&
        (c.receiverText === '' || (rule.route === 'path' && !(isStringish(first) && argNodes.length >= 2)))
      )
        continue;
      return rule;
    }
    return null;
  }

  /** The arguments a registered callback receives, by what the rule says it yields. */
  private callbackInputs(rule: CallbackSourceRule, fn: FnV, request: ReqV, node: ts.Node, ctx: Ctx): Val[] {
    switch (rule.yields) {
      case 'request':
        return [request, null, null];
      case 'body-chunk':
        // req.on('data', (chunk) => …): the request body arriving in pieces.
        return [newTaint('http', this.loc(node, ctx.unit), node.getStart(ctx.unit.sf), { whole: true })];
      case 'message':
        return fn.fn.node.parameters.map((param) =>
          newTaint('message', this.loc(param, ctx.unit), param.getStart(ctx.unit.sf)),
        );
      case 'message-event':
        return [{ k: 'req', loc: this.loc(node, ctx.unit), validated: false, flavor: 'message-event' }];
    }
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
    this.sinks(callee, this.callView(callee, args, argNodes, node, ctx), loc, true);
    if (callee.name === 'URL') {
      const taint = flatten(first) ?? flatten(args[1] ?? null);
      const argNode = argNodes[0];
      const path = argNode === undefined ? null : pathText(argNode);
      return taint === null
        ? null
        : {
            ...taint,
            prefix: flatten(first) === null ? '\u0000' : taint.prefix,
            derivedFrom: path === null || argNode === undefined ? null : { path, node: argNode, how: 'url' },
          };
    }
    if (callee.name === 'URLSearchParams' || callee.name === 'String') return flatten(first);
    if (callee.name === 'RegExp' && argNodes[0] !== undefined && ts.isStringLiteralLike(skip(argNodes[0]))) {
      return {
        k: 'regex',
        literal: `/${(skip(argNodes[0]) as ts.StringLiteralLike).text}/${literalText(argNodes[1] === undefined ? undefined : skip(argNodes[1])) ?? ''}`,
      };
    }
    args.forEach((arg) => {
      if (arg !== null && arg.k === 'fn') this.invokeInline(arg, [], env, ctx);
    });
    if (callee.val !== null && callee.val.k === 'cls') {
      const inst: InstV = { k: 'inst', cls: callee.val.cls };
      const ctor = callee.val.cls.node.members.find(
        (m): m is ts.ConstructorDeclaration => ts.isConstructorDeclaration(m) && m.body !== undefined,
      );
      const unit = this.source.unit(callee.val.cls.file);
      if (ctor !== undefined && unit !== null && args.some((a) => flatten(a) !== null))
        this.invoke(
          { node: ctor, file: unit.path, closure: this.moduleEnv(unit), cls: callee.val.cls },
          args,
          inst,
          loc,
        );
      return inst;
    }
    const mod = this.moduleOf(callee);
    return mod !== null && MODELS.tracksInstances(mod.module)
      ? { k: 'mod', module: mod.module, path: [...mod.path, '()'] }
      : null;
  }

  // ───────────────────────────── sinks ─────────────────────────────

  private report(kind: CheckKind, val: Val | undefined, loc: Loc, name: string): void {
    const taint = taintFor(val ?? null, kind);
    if (taint !== null) this.flow(kind, loc, name, taint);
  }

  /** What sink rules see of a call or construction. */
  private callView(
    c: Callee,
    args: readonly Val[],
    argNodes: readonly ts.Expression[],
    node: ts.CallExpression | ts.NewExpression,
    ctx: Ctx,
  ): CallView {
    const at = (index: number): ts.Expression | undefined =>
      argNodes[index] === undefined ? undefined : skip(argNodes[index]);
    return {
      name: c.name,
      receiverText: c.receiverText,
      root: c.root,
      text: c.text,
      args,
      argNodes,
      receiver: c.receiverVal,
      literal: (index) => literalText(at(index)),
      objectLiteral: (index) => {
        const arg = at(index);
        return arg !== undefined && ts.isObjectLiteralExpression(arg) ? arg : null;
      },
      get contentType() {
        return (
          (ts.isCallExpression(node) ? contentTypeInChain(node.expression, ctx.unit.sf) : null) ??
          ctx.contentTypes.get(c.root) ??
          null
        );
      },
    };
  }

  /**
   * Checks a call (or `new`) against the models' sink rules: a package member by its rules; a
   * global function by name when nothing binds it; any other method by name and receiver. Calls
   * into a package with rules of its own are judged by those rules only (`fs.open` is not
   * `window.open`); other packages (a database client) by method name like any receiver.
   */
  private sinks(c: Callee, view: CallView, loc: Loc, construct: boolean): void {
    const mod = this.moduleOf(c);
    const rules: SinkRule[] = [];
    if (mod !== null) rules.push(...MODELS.moduleSinkRules(mod.module, mod.member, mod.instance, construct));
    if (c.free) {
      if (mod === null && !c.bound) rules.push(...MODELS.globalSinkRules(c.name, construct));
    } else if (!construct && (mod === null || !MODELS.isKnownModule(mod.module))) {
      const receiver = c.receiverVal;
      const inputMethod =
        receiver !== null &&
        receiver.k === 'req' &&
        (MODELS.request(receiver.flavor ?? 'http')?.methods.has(c.name) ?? false);
      if (!inputMethod) rules.push(...MODELS.methodSinkRules(c.name).filter((rule) => methodMatches(rule.call, c)));
    }
    for (const rule of rules) {
      if (rule.when !== undefined && !rule.when(view)) continue;
      const label = rule.label ?? (construct ? `new ${c.text}` : c.text);
      if (rule.value !== undefined) this.report(rule.kind, rule.value(view), loc, label);
      else
        for (const slot of rule.args ?? [])
          for (const val of slotValues(slot, view.args)) this.report(rule.kind, val, loc, label);
    }
  }

  private noteContentType(c: Callee, argNodes: readonly ts.Expression[], ctx: Ctx): void {
    if (!RESPONSE_RECEIVER.test(c.root)) return;
    let value: string | null = null;
    const first = literalText(argNodes[0] === undefined ? undefined : skip(argNodes[0]));
    if (CONTENT_TYPE_METHODS.includes(c.name) && first !== null) value = first;
    if (HEADER_METHODS.includes(c.name) && first !== null && /^content-type$/i.test(first))
      value = literalText(argNodes[1] === undefined ? undefined : skip(argNodes[1]));
    if (c.name === 'writeHead') {
      const headers = argNodes.find((a) => ts.isObjectLiteralExpression(skip(a)));
      if (headers !== undefined) value = headers.getText(ctx.unit.sf);
    }
    if (value === null) return;
    ctx.contentTypes.set(c.root, /html/i.test(value) ? 'html' : 'text');
  }

  // ───────────────────────────── stores (second-order flows) ─────────────────────────────

  /**
   * Reads and writes of a store (the models' store rules): `User.findByPk(id)` returns a record whose
   * fields hold what was written to them; `User.update({ bio: req.body.bio })` and `user.update(…)`
   * note that the field holds input. Undefined when the call is neither.
   */
  private storeCall(
    c: Callee,
    args: readonly Val[],
    argNodes: readonly ts.Expression[],
    loc: Loc,
    ctx: Ctx,
  ): Val | undefined {
    if (c.free || c.name === '') return undefined;
    const receiver = c.receiverVal;
    const record = receiver !== null && receiver.k === 'record' ? receiver.store : null;
    for (const model of MODELS.stores) {
      const store = record ?? (model.receiver.test(c.receiverText) ? storeKey(c.receiverText) : null);
      if (store === null) continue;
      if (model.readMethods.includes(c.name) && record === null) return { k: 'record', store };
      if (model.writeMethods.includes(c.name)) {
        for (const data of writtenData(c.name, args, record !== null)) this.noteWrites(store, data, loc, 0);
        return { k: 'record', store };
      }
      if (record !== null && (c.name === 'get' || c.name === 'getDataValue')) {
        const field = literalText(argNodes[0] === undefined ? undefined : skip(argNodes[0]));
        return field === null ? null : this.readStoredField(store, field, argNodes[0] ?? null, ctx);
      }
      if (record !== null && ['toJSON', 'toObject', 'reload'].includes(c.name)) return receiver;
    }
    return undefined;
  }

  /** The fields of a written object that hold input (one level into `data`, `$set`, `values`, `attributes`). */
  private noteWrites(store: string, data: Val, loc: Loc, depth: number): void {
    if (data === null) return;
    if (data.k === 'taint') {
      if (data.whole) this.noteWrite(store, '*', data, loc);
      return;
    }
    if (data.k !== 'obj') return;
    for (const [key, val] of data.fields) {
      if (STORE_FILTER_KEYS.has(key)) continue;
      if (STORE_DATA_KEYS.has(key) && depth === 0) {
        this.noteWrites(store, val, loc, depth + 1);
        continue;
      }
      const taint = flatten(val);
      if (taint !== null) this.noteWrite(store, key, taint, loc);
    }
    const rest = flatten(data.rest);
    if (rest !== null) this.noteWrite(store, '*', rest, loc);
  }

  private noteWrite(store: string, field: string, taint: TaintV, loc: Loc): void {
    // Only client input is worth following through a store (not configuration, not a second hop).
    if (taint.origin !== 'http' && taint.origin !== 'message') return;
    const key = `${store}.${field}`;
    const frame = this.frames.at(-1);
    if (frame !== undefined && !frame.writes.has(key))
      frame.writes.set(key, {
        store,
        field,
        origin: taint.origin,
        source: taint.source,
        write: loc,
        clean: taint.clean,
      });
  }

  /** A field read from a stored record: input of origin `stored` when the seed says input was written there. */
  private readStoredField(store: string, field: string, node: ts.Node | null, ctx: Ctx): Val {
    const key = `${store}.${field}`;
    this.frames.at(-1)?.reads.add(key);
    const write = this.storeSeed.get(key) ?? this.storeSeed.get(`${store}.*`);
    if (write === undefined) return null;
    const via = node === null ? [write.write] : [write.write, this.loc(node, ctx.unit)];
    return newTaint('stored', write.source, -1, { clean: write.clean, via, scalar: true, prefix: '' });
  }

  /** Raw request input passed straight from a handler to a repository function (business logic without validation). */
  private businessSink(c: Callee, args: readonly Val[], loc: Loc, resolved: FnV | null, ctx: Ctx): void {
    if (
      !this.config.kinds.has('business') ||
      resolved === null ||
      !ctx.inFunction ||
      NOT_BUSINESS_LOGIC.test(c.name) ||
      c.name === '' ||
      (c.free && c.name === 'require')
    )
      return;
    for (const arg of args) {
      const taint = taintFor(arg, 'business');
      if (taint !== null && taint.origin === 'http' && !taint.validated && taint.via.length === 0) {
        this.flow('business', loc, c.text, taint);
        return;
      }
    }
  }
}

// ───────────────────────────── helpers ─────────────────────────────

/** Whether a method-name sink pattern accepts the call's receiver (any constraint that holds is enough). */
function methodMatches(call: CallPattern, c: Callee): boolean {
  if (!('method' in call)) return false;
  if (call.receiver === undefined && call.root === undefined && call.on === undefined) return true;
  if (call.receiver?.test(c.receiverText) === true || call.root?.test(c.root) === true) return true;
  const receiver = c.receiverVal;
  return (
    call.on?.some(
      (name) => c.receiverText === name || (receiver !== null && receiver.k === 'global' && receiver.name === name),
    ) === true
  );
}

/** The values an argument slot designates: an argument, some fields of an options object, or every argument. */
function slotValues(slot: ArgSlot, args: readonly Val[]): readonly Val[] {
  if (slot === 'all') return args;
  if (typeof slot === 'number') return [args[slot] ?? null];
  const arg = args[slot.index] ?? null;
  if (arg !== null && arg.k === 'obj' && arg.elems === null)
    return slot.fields.map((field) => arg.fields.get(field) ?? null);
  return [arg];
}

/** Keys of a written object that select records rather than hold data. */
const STORE_FILTER_KEYS = new Set(['where', '$where', '_id', 'id']);
/** Keys whose object holds the written fields (Prisma `data`, Mongo `$set`, knex/Sequelize `values`). */
const STORE_DATA_KEYS = new Set(['data', '$set', '$setOnInsert', 'values', 'attributes']);
/** Writes whose first argument is a filter and second the update (MongoDB, mongoose). */
const FILTER_FIRST_WRITES = new Set(['updateOne', 'updateMany', 'findOneAndUpdate', 'findByIdAndUpdate', 'replaceOne']);

/**
 * The store a receiver names, normalised so that writes and reads meet: `UserModel`, `models.User`,
 * `prisma.user`, `this.usersRepository` → `user`; `db.reviewsCollection` → `review`.
 */
export function storeKey(receiverText: string): string {
  const last = receiverText.replace(/\s+/g, '').split('.').pop() ?? receiverText;
  const name = last.replace(/(Model|Collection|Repository|Repo|Table|Entity|Dao|Store)s?$/i, '') || last;
  return name.toLowerCase().replace(/s$/, '');
}

/** The objects a write stores: the update of a filter-first write, else every argument (Sequelize `update(values, { where })`). */
function writtenData(method: string, args: readonly Val[], onRecord: boolean): readonly Val[] {
  const second = args[1] ?? null;
  if (FILTER_FIRST_WRITES.has(method)) return [second];
  if (method === 'update' && !onRecord && second !== null && second.k === 'obj' && !second.fields.has('where'))
    return [second];
  return method === 'update' ? [args[0] ?? null] : args;
}

/** `process.exit(1)`, Koa's `ctx.throw(400)` and friends end the path like a throw. */
function terminates(expression: ts.Expression): boolean {
  let expr = skip(expression);
  if (ts.isAwaitExpression(expr)) expr = skip(expr.expression);
  if (!ts.isCallExpression(expr)) return false;
  return MODELS.terminates(expr.expression.getText());
}

function intersect(a: readonly Refinement[], b: readonly Refinement[]): Refinement[] {
  const out: Refinement[] = [];
  for (const ra of a) {
    const rb = b.find((r) => r.path === ra.path && r.marker === ra.marker);
    if (rb !== undefined) out.push({ ...ra, clean: ra.clean & rb.clean, validated: ra.validated && rb.validated });
  }
  return out;
}

/** /^\/(?!\/)/ and friends: a same-site path check is enough for a redirect. */
function redirectRegexMask(regexLiteral: string): number {
  const source = patternOf(regexLiteral);
  // A same-site path: ^/ followed by something that is not another slash.
  if (/^\^\\\/(\(\?!\[?\\\/|\[\^\\\/|\[a-zA-Z0-9|\[\\w|\[a-z)/.test(source)) return URL_MASK;
  // A fixed origin: ^https://host/ (the host written out, optional www., ending in a slash or the end).
  if (
    /^\^https\??:\\\/\\\/(\(www\\\.\)\?)?[\w-]+(\\\.[\w-]+)+(:\d+)?(\\\/|\(\\\/|\(\?:\\\/|\$|\(\$|\(\?:\$|\(\[\\\/)/.test(
      source,
    )
  )
    return URL_MASK;
  return 0;
}
