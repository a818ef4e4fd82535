import { type RequestFlavor, maskOf } from '../model.js';
import { angularModel } from './angular.js';
import { browserModel } from './browser.js';
import { childProcessModel } from './child-process.js';
import { expressModel } from './express.js';
import { fastifyModel } from './fastify.js';
import { fetchApiModel } from './fetch-api.js';
import { fsModel } from './fs.js';
import { graphqlModel } from './graphql.js';
import { hapiModel } from './hapi.js';
import { headlessBrowsersModel } from './headless-browsers.js';
import { honoModel } from './hono.js';
import { httpClientsModel } from './http-clients.js';
import { httpResponseModel } from './http-response.js';
import { javascriptModel } from './javascript.js';
import { jqueryModel } from './jquery.js';
import { koaModel } from './koa.js';
import { mongodbModel } from './mongodb.js';
import { nestModel } from './nest.js';
import { nextModel } from './next.js';
import { nodeHttpModel } from './node-http.js';
import { nodePathModel } from './node-path.js';
import { nodeProcessModel } from './node-process.js';
import { reactModel } from './react.js';
import { sanitisersModel } from './sanitisers.js';
import { schemasModel } from './schemas.js';
import { serverlessModel } from './serverless.js';
import { sqlModel } from './sql.js';
import { storesModel } from './stores.js';
import { templatesModel } from './templates.js';
import { vmModel } from './vm.js';
import { websocketModel } from './websocket.js';
import type {
  AssignmentSinkRule,
  CallbackSourceRule,
  DecoratorSource,
  FrameworkModel,
  GlobalObject,
  GlobalSourceRule,
  JsxSinkRule,
  Names,
  PassEffect,
  RequestModel,
  SchemaLibrary,
  SchemaMethod,
  SinkRule,
  StoreModel,
} from './types.js';

/** Every framework and library the taint engine knows, one model per file. */
export const FRAMEWORK_MODELS: readonly FrameworkModel[] = [
  javascriptModel,
  nodeProcessModel,
  nodeHttpModel,
  nodePathModel,
  childProcessModel,
  fsModel,
  vmModel,
  expressModel,
  koaModel,
  fastifyModel,
  hapiModel,
  honoModel,
  nextModel,
  fetchApiModel,
  serverlessModel,
  nestModel,
  graphqlModel,
  websocketModel,
  browserModel,
  angularModel,
  jqueryModel,
  reactModel,
  httpResponseModel,
  httpClientsModel,
  headlessBrowsersModel,
  templatesModel,
  sqlModel,
  mongodbModel,
  storesModel,
  schemasModel,
  sanitisersModel,
];

const list = (names: Names): readonly string[] => (typeof names === 'string' ? [names] : names);

/** A request model merged over every framework that contributes to its flavour. */
export interface MergedRequestModel {
  readonly flavor: RequestFlavor;
  readonly origin: RequestModel['origin'];
  readonly anyField: boolean;
  readonly fields: ReadonlySet<string>;
  readonly exceptFields: ReadonlySet<string>;
  readonly scalarFields: ReadonlySet<string>;
  readonly wholeFields: ReadonlySet<string>;
  readonly nestedFields: ReadonlySet<string>;
  readonly methods: ReadonlySet<string>;
  readonly wholeMethods: ReadonlySet<string>;
  readonly scalarMethods: ReadonlySet<string>;
  readonly selfMethods: ReadonlySet<string>;
  readonly validMethods: ReadonlySet<string>;
  readonly trustedBy: string | null;
}

interface ModuleRules {
  /** Rules by exact member name. */
  readonly byMember: Map<string, SinkRule[]>;
  /** Rules whose member is a pattern. */
  readonly byPattern: SinkRule[];
}

/**
 * The models compiled for lookup: every question the interpreter asks (is this call a sink, what
 * does this package function do to taint, which request fields are input) is one map lookup here.
 */
export class ModelIndex {
  private readonly moduleSinks = new Map<string, ModuleRules>();
  private readonly moduleConstructs = new Map<string, ModuleRules>();
  private readonly globalSinks = new Map<string, SinkRule[]>();
  private readonly globalConstructs = new Map<string, SinkRule[]>();
  private readonly methodSinks = new Map<string, SinkRule[]>();
  private readonly assignments = new Map<string, AssignmentSinkRule[]>();
  private readonly jsx = new Map<string, JsxSinkRule[]>();
  private readonly sanitiserRules: {
    module: ReadonlySet<string>;
    member: Names | RegExp;
    mask: number;
    arg: number;
  }[] = [];
  private readonly passRules = new Map<string, Map<string, PassEffect>>();
  private readonly schemaModules = new Map<string, SchemaLibrary>();
  private readonly globalObjectNames = new Map<string, GlobalObject>();
  private readonly globalRules = new Map<string, GlobalSourceRule['yields']>();
  private readonly requestModels = new Map<RequestFlavor, MergedRequestModel>();
  private readonly aliases = new Map<string, string>();
  private readonly instanceModuleSet = new Set<string>();
  private readonly injectorSet = new Set<string>();
  private readonly terminatorPatterns: RegExp[] = [];
  /** Modules with rules of their own: a call into them is judged by those rules, not by method names. */
  private readonly knownModuleSet = new Set<string>();
  readonly decorators = new Map<string, DecoratorSource>();
  readonly requestTypes: { readonly name: RegExp; readonly flavor: RequestFlavor }[] = [];
  readonly requestNames = new Set<string>();
  readonly requestFactories = new Set<string>();
  readonly exportedHandlers: { readonly names: RegExp; readonly flavor: RequestFlavor }[] = [];
  readonly resolverOwners: RegExp[] = [];
  readonly safePipes: RegExp[] = [];
  readonly validatedDto: RegExp[] = [];
  private readonly callbacksByMethod = new Map<string, CallbackSourceRule[]>();
  private readonly callbacksByProperty = new Map<string, CallbackSourceRule[]>();
  readonly stores: StoreModel[] = [];
  /** Text that marks a file able to start a flow through some model. */
  readonly entryHint: RegExp;

  constructor(readonly models: readonly FrameworkModel[]) {
    const hints: string[] = [];
    for (const model of models) {
      if (model.entryHint !== undefined) hints.push(model.entryHint.source);
      for (const rule of model.sinks ?? []) this.addSink(rule);
      for (const rule of model.assignmentSinks ?? [])
        for (const property of list(rule.property)) push(this.assignments, property, rule);
      for (const rule of model.jsxSinks ?? []) push(this.jsx, rule.attribute, rule);
      for (const rule of model.sanitisers ?? []) {
        if (!('module' in rule.call)) throw new Error(`${model.id}: sanitiser rules name a module`);
        for (const module of list(rule.call.module)) this.knownModuleSet.add(module);
        this.sanitiserRules.push({
          module: new Set(list(rule.call.module)),
          member: rule.call.member,
          mask: maskOf(rule.clean),
          arg: rule.arg ?? 0,
        });
      }
      for (const rule of model.passThrough ?? []) {
        for (const module of list(rule.module)) {
          this.knownModuleSet.add(module);
          const members = this.passRules.get(module) ?? new Map<string, PassEffect>();
          for (const member of list(rule.member)) if (!members.has(member)) members.set(member, rule.effect);
          this.passRules.set(module, members);
        }
      }
      if (model.schemas !== undefined)
        for (const module of model.schemas.modules) this.schemaModules.set(module, model.schemas);
      for (const [name, object] of Object.entries(model.globalObjects ?? {})) this.globalObjectNames.set(name, object);
      for (const rule of model.globals ?? [])
        for (const property of list(rule.property)) this.globalRules.set(`${rule.object}.${property}`, rule.yields);
      for (const request of model.requests ?? []) this.mergeRequest(request);
      const params = model.parameters;
      if (params !== undefined) {
        for (const decorator of params.decorators ?? []) this.decorators.set(decorator.name, decorator);
        this.requestTypes.push(...(params.types ?? []));
        for (const name of params.names ?? []) this.requestNames.add(name);
        if (params.exportedHandlers !== undefined) this.exportedHandlers.push(params.exportedHandlers);
        if (params.resolverOwners !== undefined) this.resolverOwners.push(params.resolverOwners);
        if (params.safePipes !== undefined) this.safePipes.push(params.safePipes);
        if (params.validatedDto !== undefined) this.validatedDto.push(params.validatedDto);
      }
      for (const name of model.requestFactories ?? []) this.requestFactories.add(name);
      for (const injector of model.injectors ?? []) this.injectorSet.add(`${injector.module}#${injector.member}`);
      this.terminatorPatterns.push(...(model.terminators ?? []));
      for (const rule of model.callbacks ?? []) {
        for (const method of rule.method === undefined ? [] : list(rule.method))
          push(this.callbacksByMethod, method, rule);
        if (rule.assignedProperty !== undefined) push(this.callbacksByProperty, rule.assignedProperty, rule);
      }
      if (model.unboundAliases !== undefined)
        for (const name of model.unboundAliases.names) this.aliases.set(name, model.unboundAliases.module);
      for (const module of model.instanceModules ?? []) this.instanceModuleSet.add(module);
      if (model.stores !== undefined) this.stores.push(model.stores);
    }
    this.entryHint = new RegExp(hints.map((h) => `(?:${h})`).join('|'));
  }

  private addSink(rule: SinkRule): void {
    const call = rule.call;
    if ('module' in call) {
      const table = rule.construct === true ? this.moduleConstructs : this.moduleSinks;
      for (const module of list(call.module)) {
        this.knownModuleSet.add(module);
        const key = `${module}${call.instance === true ? '#' : ''}`;
        const rules = table.get(key) ?? { byMember: new Map<string, SinkRule[]>(), byPattern: [] };
        table.set(key, rules);
        if (call.member instanceof RegExp) rules.byPattern.push(rule);
        else for (const member of list(call.member)) push(rules.byMember, member, rule);
      }
    } else if ('global' in call) {
      for (const name of list(call.global))
        push(rule.construct === true ? this.globalConstructs : this.globalSinks, name, rule);
    } else {
      for (const name of list(call.method)) push(this.methodSinks, name, rule);
    }
  }

  private mergeRequest(request: RequestModel): void {
    const known = this.requestModels.get(request.flavor);
    const union = (a: ReadonlySet<string> | undefined, b: readonly string[] | undefined): Set<string> =>
      new Set([...(a ?? []), ...(b ?? [])]);
    this.requestModels.set(request.flavor, {
      flavor: request.flavor,
      origin: request.origin,
      anyField: (known?.anyField ?? false) || request.fields === '*',
      fields: union(known?.fields, request.fields === '*' ? [] : request.fields),
      exceptFields: union(known?.exceptFields, request.exceptFields),
      scalarFields: union(known?.scalarFields, request.scalarFields),
      wholeFields: union(known?.wholeFields, request.wholeFields),
      nestedFields: union(known?.nestedFields, request.nestedFields),
      methods: union(known?.methods, request.methods),
      wholeMethods: union(known?.wholeMethods, request.wholeMethods),
      scalarMethods: union(known?.scalarMethods, request.scalarMethods),
      selfMethods: union(known?.selfMethods, request.selfMethods),
      validMethods: union(known?.validMethods, request.validMethods),
      trustedBy: request.trustedBy ?? known?.trustedBy ?? null,
    });
  }

  /** Sink rules for a package member (`instance`: on an object the package returned). */
  moduleSinkRules(module: string, member: string, instance: boolean, construct: boolean): readonly SinkRule[] {
    const rules = (construct ? this.moduleConstructs : this.moduleSinks).get(`${module}${instance ? '#' : ''}`);
    if (rules === undefined) return [];
    const exact = rules.byMember.get(member) ?? [];
    const patterned = rules.byPattern.filter(
      (rule) => 'module' in rule.call && rule.call.member instanceof RegExp && rule.call.member.test(member),
    );
    return patterned.length === 0 ? exact : [...exact, ...patterned];
  }

  globalSinkRules(name: string, construct: boolean): readonly SinkRule[] {
    return (construct ? this.globalConstructs : this.globalSinks).get(name) ?? [];
  }

  methodSinkRules(name: string): readonly SinkRule[] {
    return this.methodSinks.get(name) ?? [];
  }

  assignmentSinkRules(property: string): readonly AssignmentSinkRule[] {
    return this.assignments.get(property) ?? [];
  }

  jsxSinkRules(attribute: string): readonly JsxSinkRule[] {
    return this.jsx.get(attribute) ?? [];
  }

  /** The kinds a package function's result is clean for, and which argument it cleans; null when it is no sanitiser. */
  sanitiser(module: string, member: string): { readonly mask: number; readonly arg: number } | null {
    for (const rule of this.sanitiserRules) {
      if (!rule.module.has(module)) continue;
      const matches = rule.member instanceof RegExp ? rule.member.test(member) : list(rule.member).includes(member);
      if (matches) return { mask: rule.mask, arg: rule.arg };
    }
    return null;
  }

  /** How a package function passes taint on; null when the package has no such rule (taint is dropped). */
  passEffect(module: string, member: string): PassEffect | null {
    const members = this.passRules.get(module);
    return members?.get(member) ?? members?.get('*') ?? null;
  }

  schemaLibrary(module: string): SchemaLibrary | null {
    return this.schemaModules.get(module) ?? null;
  }

  /** What a method called on a schema value does (any library's name for it). */
  schemaMethod(name: string): SchemaMethod | null {
    for (const library of this.schemaModules.values()) {
      const method = library.methods[name];
      if (method !== undefined) return method;
    }
    return null;
  }

  globalObject(name: string): GlobalObject | null {
    return this.globalObjectNames.get(name) ?? null;
  }

  globalProperty(object: GlobalObject, property: string): GlobalSourceRule['yields'] | null {
    return this.globalRules.get(`${object}.${property}`) ?? this.globalRules.get(`${object}.*`) ?? null;
  }

  request(flavor: RequestFlavor): MergedRequestModel | null {
    return this.requestModels.get(flavor) ?? null;
  }

  /** Whether a field of a request-like object of this flavour holds input. */
  isInputField(flavor: RequestFlavor, field: string): boolean {
    const model = this.requestModels.get(flavor);
    if (model === undefined) return false;
    return (
      model.fields.has(field) || (model.anyField && !model.exceptFields.has(field) && !model.nestedFields.has(field))
    );
  }

  /** Callback-source rules registered by a method of this name, in model order. */
  callbackRules(method: string): readonly CallbackSourceRule[] {
    return this.callbacksByMethod.get(method) ?? [];
  }

  /** Callback-source rules for an assignment to this property (`ws.onmessage = …`). */
  assignedCallbackRules(property: string): readonly CallbackSourceRule[] {
    return this.callbacksByProperty.get(property) ?? [];
  }

  unboundAlias(name: string): string | null {
    return this.aliases.get(name) ?? null;
  }

  /** Whether a call with this callee text never returns (`process.exit`, `ctx.throw`). */
  terminates(calleeText: string): boolean {
    return this.terminatorPatterns.some((re) => re.test(calleeText));
  }

  isInjector(module: string, member: string): boolean {
    return this.injectorSet.has(`${module}#${member}`);
  }

  tracksInstances(module: string): boolean {
    return this.instanceModuleSet.has(module);
  }

  /** A module with sink, sanitiser or pass-through rules of its own. */
  isKnownModule(module: string): boolean {
    return this.knownModuleSet.has(module);
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const known = map.get(key);
  if (known === undefined) map.set(key, [value]);
  else known.push(value);
}

/** The index over every built-in model (built once per process). */
export const MODELS = new ModelIndex(FRAMEWORK_MODELS);
