import type ts from 'typescript';
import type { CheckKind, Origin, RequestFlavor, Val } from '../model.js';

// The shape of a framework or library model: what its APIs mean to the taint engine. Each model
// file describes one framework or library (its sources, sinks, sanitisers and how values pass
// through it) as data; the interpreter matches calls, constructions, assignments and parameters
// against the compiled index (index.ts) and never names a library itself.

/** One or several names. */
export type Names = string | readonly string[];

/**
 * How a call (or `new`) is recognised. Matching is on the syntax tree and the imports, without a
 * type checker, so a pattern says what evidence it needs:
 * - `module`: a member of an imported package (`import axios from 'axios'; axios.get(u)`; member
 *   `''` is the package itself called, `axios(u)`). With `instance: true` it matches the member on
 *   an object the package returned (`(await puppeteer.launch()).newPage()` → `page.goto(u)`),
 *   without it only on the package's own exports.
 * - `global`: a global function not shadowed by any binding (`eval`, `fetch`).
 * - `method`: a method name on any receiver whose text matches `receiver` (name-based, for
 *   receivers the engine cannot resolve: `db.query`, `res.redirect`), or whose value is one of
 *   the browser globals in `on`.
 */
export type CallPattern =
  | { readonly module: Names; readonly member: Names | RegExp; readonly instance?: boolean }
  | { readonly global: Names }
  | {
      readonly method: Names;
      readonly receiver?: RegExp;
      readonly root?: RegExp;
      readonly on?: readonly BrowserGlobal[];
    };

export type BrowserGlobal = 'document' | 'location' | 'window';

/** What a sink rule sees of one call: values, syntax and a few facts the interpreter knows. */
export interface CallView {
  /** Method or function name ('' when unknown). */
  readonly name: string;
  /** Source text of the receiver ('' for a plain call). */
  readonly receiverText: string;
  /** Root identifier of the receiver chain (`res` for `res.status(200).send`). */
  readonly root: string;
  /** The callee's source text (`db.query`), used as the sink's name in findings. */
  readonly text: string;
  readonly args: readonly Val[];
  readonly argNodes: readonly ts.Expression[];
  /** The receiver's value (null for a plain call or an unknown receiver). */
  readonly receiver: Val;
  /** The literal text of an argument (string or number literal), or null. */
  literal(index: number): string | null;
  /** The object literal passed at `index`, or null. */
  objectLiteral(index: number): ts.ObjectLiteralExpression | null;
  /** The content type declared on the response before this call (`res.type('html')`), or null. */
  readonly contentType: 'html' | 'text' | null;
}

/**
 * Where a sink's dangerous value is: an argument, or (for an options object) some of its fields.
 * `{ index: 0, fields: ['url'] }` checks `axios({ url })` and `axios(url)` alike: a field list is
 * looked up when the argument is an object, and the whole argument counts otherwise.
 */
export type ArgSlot = number | { readonly index: number; readonly fields: readonly string[] } | 'all';

/** A call (or construction) that must not receive attacker-controlled data. */
export interface SinkRule {
  readonly kind: CheckKind;
  readonly call: CallPattern;
  /** Matches `new X(…)` instead of a call. */
  readonly construct?: boolean;
  /** The dangerous arguments (ignored when `value` is given). */
  readonly args?: readonly ArgSlot[];
  /** Picks the dangerous value itself when the rule needs more than an argument position (null: none). */
  readonly value?: (call: CallView) => Val;
  /** An extra condition on the call (an option, a literal program name). */
  readonly when?: (call: CallView) => boolean;
  /** What a finding calls the sink (default: the callee's text). */
  readonly label?: string;
}

/** An assignment to a property that is a sink: `el.innerHTML = x`, `location.href = x`, `ctx.body = x`. */
export interface AssignmentSinkRule {
  readonly kind: CheckKind;
  readonly property: Names;
  /** The object assigned to: one of the browser globals, or a receiver text matching `receiver`. */
  readonly on?: readonly BrowserGlobal[];
  readonly receiver?: RegExp;
  /** For `ctx.body`: only when the value is built HTML or the response was declared HTML. */
  readonly htmlOnly?: boolean;
}

/** A JSX attribute that is a sink (`dangerouslySetInnerHTML={{ __html: x }}`). */
export interface JsxSinkRule {
  readonly kind: CheckKind;
  readonly attribute: string;
  /** The field of the object literal that holds the value. */
  readonly field?: string;
}

/** The kinds a call's result is clean for: escaping, quoting and sanitising functions of a package. */
export interface SanitiserRule {
  readonly call: CallPattern;
  readonly clean: readonly CheckKind[];
  /** The sanitised argument (default 0). */
  readonly arg?: number;
}

/**
 * How a package function passes taint on, as one of the engine's effects:
 * - `clean:<kinds>` is a sanitiser, see SanitiserRule;
 * - `normalise`: `path.resolve/join/normalize` (a containment check on the result is meaningful);
 * - `relative`: `path.relative(base, target)`;
 * - `first`: the result is the first argument's taint (`path.dirname`);
 * - `all`: any argument's taint (`util.format`, `querystring.stringify`);
 * - `url`: a parsed URL (`url.parse`), checks on its host vouch for the input;
 * - `numeric`: a number or boolean, never text (`validator.toInt`);
 * - `identity`: the first argument itself (`util.promisify(fn)`).
 */
export type PassEffect = 'normalise' | 'relative' | 'first' | 'all' | 'url' | 'numeric' | 'identity' | 'clean-path';

export interface PassRule {
  readonly module: Names;
  /** Members; `'*'` for any member not listed by another rule of the same module. */
  readonly member: Names;
  readonly effect: PassEffect;
}

/** What a validation library's builder returns (zod `z.string()`, Joi `Joi.number()`). */
export type SchemaBuild = 'safe' | 'string' | 'object' | 'loose-object' | 'array' | 'union' | 'coerce' | 'any';
/** What a method on a schema does (`schema.parse(x)`, `z.string().uuid()`). */
export type SchemaMethod = 'parse' | 'safe-parse' | 'narrow' | 'regex' | 'passthrough' | 'extend';

export interface SchemaLibrary {
  readonly modules: readonly string[];
  readonly build: Readonly<Record<string, SchemaBuild>>;
  readonly methods: Readonly<Record<string, SchemaMethod>>;
}

/** A global object whose properties are sources (`process.argv`, `location.hash`). */
export interface GlobalSourceRule {
  readonly object: GlobalObject;
  /** Properties; `'*'` for every property. */
  readonly property: Names;
  /** Another global object (`window.location`), or a source. */
  readonly yields: { readonly global: GlobalObject } | { readonly origin: Origin };
}
export type GlobalObject = 'process' | 'process.env' | 'location' | 'document' | 'window';

/** Which fields and methods of a request-like object hold input. */
export interface RequestModel {
  readonly flavor: RequestFlavor;
  readonly origin: Origin;
  /** Fields that are input; `'*'`: every field but `exceptFields`. */
  readonly fields: readonly string[] | '*';
  readonly exceptFields?: readonly string[];
  /** Input fields that are always strings (never objects with operators). */
  readonly scalarFields?: readonly string[];
  /** Fields that hand over the whole client object (mass assignment when stored as is). */
  readonly wholeFields?: readonly string[];
  /** Fields that are themselves request-like (`ctx.request`, `req.raw`). */
  readonly nestedFields?: readonly string[];
  /** Methods that return input, those whose result is the whole client object, and those returning a scalar. */
  readonly methods?: readonly string[];
  readonly wholeMethods?: readonly string[];
  readonly scalarMethods?: readonly string[];
  /** Methods that return the request itself (`ctx.switchToHttp().getRequest()`). */
  readonly selfMethods?: readonly string[];
  /** Methods that return input a validator middleware checked (Hono's `c.req.valid('json')`). */
  readonly validMethods?: readonly string[];
  /**
   * A field whose check vouches for the whole object: `event.origin === 'https://…'` makes a
   * postMessage event's data trusted.
   */
  readonly trustedBy?: string;
}

/** Parameter shapes that receive a request-like object or input. */
export interface ParameterSourceRule {
  /** Decorators on the parameter (Nest `@Body()`, routing-controllers `@QueryParam()`). */
  readonly decorators?: readonly DecoratorSource[];
  /** Type names (last segment) of request-like parameters, with the flavour they get. */
  readonly types?: readonly { readonly name: RegExp; readonly flavor: RequestFlavor }[];
  /** Parameter names that are requests when nothing else binds them. */
  readonly names?: readonly string[];
  /**
   * Exported functions whose first parameter is an event of the given flavour (AWS Lambda's
   * `export const handler = async (event) => …`).
   */
  readonly exportedHandlers?: { readonly names: RegExp; readonly flavor: RequestFlavor };
  /** The second parameter of a GraphQL resolver held in an object whose owner name matches. */
  readonly resolverOwners?: RegExp;
  /** Pipes in an input decorator that turn the input into a safe scalar (`@Param('id', ParseIntPipe)`). */
  readonly safePipes?: RegExp;
  /** Decorators on a DTO's members that make the DTO a validated schema (class-validator). */
  readonly validatedDto?: RegExp;
}

export interface DecoratorSource {
  readonly name: string;
  /** `request`: the whole request object; `input`: client input. */
  readonly yields: 'request' | 'input';
  /** Without a key argument the parameter is the whole body/query object. */
  readonly whole?: boolean;
  /** Always a string (path parameters, headers). */
  readonly scalar?: boolean;
}

/**
 * A call that registers a callback whose parameters are sources:
 * - `request`: route handlers and servers (`app.get('/x', (req, res) => …)`, `http.createServer`);
 * - `message`: socket messages (`socket.on('chat', (msg) => …)`, `ws.on('message', (data) => …)`);
 * - `message-event`: a window or worker message event (`addEventListener('message', (e) => e.data)`);
 * - `body-chunk`: request body chunks (`req.on('data', (chunk) => …)`).
 */
export interface CallbackSourceRule {
  readonly yields: 'request' | 'message' | 'message-event' | 'body-chunk';
  /** The registering method (absent for a rule that only matches `assignedProperty`). */
  readonly method?: Names;
  /** The receiver's text must match (absent: any receiver but a request). */
  readonly receiver?: RegExp;
  /** The receiver must be a request object (for `req.on('data')`). */
  readonly onRequest?: boolean;
  /** The first argument's literal (an event name) must match. */
  readonly event?: RegExp;
  /** The first argument must not be one of these event names (lifecycle events carry no input). */
  readonly notEvent?: RegExp;
  /**
   * Route registration on an app or router (a receiver that is not a request): `path` needs a path
   * string first and a handler after it (`app.get('/x', h)`), `any` takes any arguments (`app.use(h)`).
   */
  readonly route?: 'path' | 'any';
  /** Middleware in the same registration that validates the request (`celebrate(…)`, `body('x')`). */
  readonly validators?: RegExp;
  /** An assignment `x.onmessage = (e) => …` registers the callback too. */
  readonly assignedProperty?: string;
}

/** Stores whose records carry request input written elsewhere (second-order flows) and mass assignment. */
export interface StoreModel {
  /** Methods that write their (object) argument to the store; `data` fields are looked into. */
  readonly writeMethods: readonly string[];
  /** Methods that return stored records. */
  readonly readMethods: readonly string[];
  /** Receivers that look like a store (`UserModel`, `db.users`, `prisma.user`, `this.userRepository`). */
  readonly receiver: RegExp;
}

/** One framework or library: what it contributes to each table. */
export interface FrameworkModel {
  readonly id: string;
  readonly description: string;
  /** Text that marks a file which can start a flow through this model (cheap pre-filter before parsing). */
  readonly entryHint?: RegExp;
  readonly sinks?: readonly SinkRule[];
  readonly assignmentSinks?: readonly AssignmentSinkRule[];
  readonly jsxSinks?: readonly JsxSinkRule[];
  readonly sanitisers?: readonly SanitiserRule[];
  readonly passThrough?: readonly PassRule[];
  readonly schemas?: SchemaLibrary;
  readonly globals?: readonly GlobalSourceRule[];
  readonly requests?: readonly RequestModel[];
  readonly parameters?: ParameterSourceRule;
  readonly callbacks?: readonly CallbackSourceRule[];
  /** Identifiers that are global objects with sources (`process`, `location`, `window`). */
  readonly globalObjects?: Readonly<Record<string, GlobalObject>>;
  /** Calls that never return (they exit or throw), by callee text: `process.exit`, Koa's `ctx.throw`. */
  readonly terminators?: readonly RegExp[];
  /** Dependency-injection functions that return an object of the type they are given (`inject(ActivatedRoute)`). */
  readonly injectors?: readonly { readonly module: string; readonly member: string }[];
  /** Methods whose result is a request wherever they are called (Nest's `getRequest()`). */
  readonly requestFactories?: readonly string[];
  /** Free, unbound function names that stand for this module (`exec` after `require('shelljs/global')`). */
  readonly unboundAliases?: { readonly module: string; readonly names: readonly string[] };
  /** Packages whose returned objects are tracked (for `instance` sink patterns). */
  readonly instanceModules?: readonly string[];
  readonly stores?: StoreModel;
}
