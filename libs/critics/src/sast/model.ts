import type ts from 'typescript';

/** Injection sinks of the SAST scanner. */
export const SINK_KINDS = ['sql', 'command', 'code', 'path', 'redirect', 'xss', 'ssrf'] as const;
export type SinkKind = (typeof SINK_KINDS)[number];

/** Rules of the input-validation checker (the same engine, other sinks). */
export const VALIDATION_KINDS = ['business', 'mass-assignment', 'nosql'] as const;
export type ValidationKind = (typeof VALIDATION_KINDS)[number];

export type CheckKind = SinkKind | ValidationKind;

/**
 * Where tainted data comes from: a request, the environment, the command line, the page URL, a
 * socket or window message, request input stored earlier and read back (second order), or — in
 * library mode — an argument a caller of an exported function passes in.
 */
export const ORIGINS = ['http', 'env', 'argv', 'dom', 'message', 'stored', 'caller'] as const;
export type Origin = (typeof ORIGINS)[number];

const KIND_BITS: Readonly<Record<CheckKind, number>> = {
  sql: 1,
  command: 2,
  code: 4,
  path: 8,
  redirect: 16,
  xss: 32,
  business: 64,
  'mass-assignment': 128,
  nosql: 256,
  ssrf: 512,
};
export const ALL_KINDS_MASK = 1023;

export function kindBit(kind: CheckKind): number {
  return KIND_BITS[kind];
}

export function maskOf(kinds: readonly CheckKind[]): number {
  return kinds.reduce((mask, kind) => mask | KIND_BITS[kind], 0);
}

/** A place in the repository, with the source text of the expression (cut short). */
export interface Loc {
  readonly file: string;
  readonly line: number;
  readonly endLine: number;
  readonly text: string;
}

/** How a tainted value was derived from another one, so a check on the result can vouch for the input. */
export interface Derivation {
  /** The access path of the input the value was computed from (e.g. `name`, `req.query.file`). */
  readonly path: string;
  readonly node: ts.Expression;
  readonly how: 'resolve' | 'relative' | 'url';
}

/** An attacker-influenced value. */
export interface TaintV {
  readonly k: 'taint';
  readonly origin: Origin;
  readonly source: Loc;
  /** Position of the source expression, so `req.query` → `req.query.id` can extend its text. */
  readonly sourcePos: number;
  /** Call sites the value crossed (caller side), oldest first. */
  readonly via: readonly Loc[];
  /** Bit mask of the check kinds this value has been sanitised for. */
  readonly clean: number;
  /** Passed a schema or validation step (what the input-validation checker asks for). */
  readonly validated: boolean;
  /** Went through path.resolve / join / normalize (a containment check on it is meaningful). */
  readonly normalized: boolean;
  /** Constant text known to precede the tainted part ('' when the value starts tainted); null when unknown. */
  readonly prefix: string | null;
  /** Built together with HTML markup. */
  readonly html: boolean;
  /** Built by concatenation or a template with constant text (a query built as a string). */
  readonly built: boolean;
  /** The whole request body/query object (mass assignment), not one field. */
  readonly whole: boolean;
  /** Known to be a string or number, never an object (no NoSQL operator objects). */
  readonly scalar: boolean;
  readonly derivedFrom: Derivation | null;
}

/**
 * A request (or framework context, or message event) object: its input fields are sources, the
 * object itself is not. Its flavour names the table of fields and methods that hold input
 * (models/requests.ts).
 */
export interface ReqV {
  readonly k: 'req';
  readonly loc: Loc;
  /** A validation middleware (or pipe) ran on the route before the handler. */
  readonly validated: boolean;
  /** Which request model applies (absent: an HTTP request of any server framework). */
  readonly flavor?: RequestFlavor;
  /** The sender was checked (a message event whose `origin` was compared with a constant): its data is not input. */
  readonly trusted?: boolean;
}

/** The kinds of request-like objects the models know. */
export const REQUEST_FLAVORS = ['http', 'lambda', 'message-event', 'angular-route'] as const;
export type RequestFlavor = (typeof REQUEST_FLAVORS)[number];

/** An object or array whose parts are tracked separately. */
export interface ObjV {
  readonly k: 'obj';
  readonly fields: ReadonlyMap<string, Val>;
  /** What any other property (or spread, or unknown index) holds. */
  readonly rest: Val;
  /** Array elements when the value is an array literal. */
  readonly elems: readonly Val[] | null;
  /** Which object literal it came from (for literal-only checks such as `{ shell: true }`). */
  readonly literal: ts.ObjectLiteralExpression | null;
}

/** A function value with the environment it closes over. */
export interface FnV {
  readonly k: 'fn';
  readonly fn: FnRef;
}

/**
 * Something from an external module: `child_process`, `fs` → `readFile`, … A `()` step in the path
 * marks an object the module returned (`(await puppeteer.launch()).newPage()` → `launch () newPage ()`),
 * kept only for modules whose models describe such instances.
 */
export interface ModV {
  readonly k: 'mod';
  readonly module: string;
  readonly path: readonly string[];
}

/**
 * A record read back from a store (`await User.findByPk(id)`): its fields hold what request input
 * was written to the same store's fields elsewhere (second-order flows).
 */
export interface RecordV {
  readonly k: 'record';
  readonly store: string;
}

/** A module of the repository imported as a namespace. */
export interface NsV {
  readonly k: 'ns';
  readonly file: string;
}

export interface ClsV {
  readonly k: 'cls';
  readonly cls: ClassRef;
}

export interface InstV {
  readonly k: 'inst';
  readonly cls: ClassRef;
}

/** Browser/Node globals whose properties are sources (`process`, `location`, `document`, `window`). */
export interface GlobalV {
  readonly k: 'global';
  readonly name: 'process' | 'process.env' | 'location' | 'document' | 'window';
}

/** What a validation schema lets through. */
export type Safety =
  | { readonly kind: 'safe' }
  | { readonly kind: 'string' }
  | { readonly kind: 'any' }
  | { readonly kind: 'object'; readonly fields: ReadonlyMap<string, Safety>; readonly passthrough: boolean }
  | { readonly kind: 'array'; readonly elem: Safety };

/** A zod/yup/joi-like schema value. */
export interface SchemaV {
  readonly k: 'schema';
  readonly safety: Safety;
}

/** A boolean that records a check (`const ok = ALLOWED.includes(x)`), used later as a guard. */
export interface GuardV {
  readonly k: 'guard';
  readonly whenTrue: readonly Refinement[];
  readonly whenFalse: readonly Refinement[];
}

/** A regular expression whose pattern is known (for `RE.test(x)` guards written with a named pattern). */
export interface RegexV {
  readonly k: 'regex';
  readonly literal: string;
}

export type Val =
  null | TaintV | ReqV | ObjV | FnV | ModV | NsV | ClsV | InstV | GlobalV | SchemaV | GuardV | RegexV | RecordV;

/** What a branch learns about an access path: the kinds it is clean for, or a partial redirect check. */
export interface Refinement {
  readonly path: string;
  readonly node: ts.Expression;
  readonly clean: number;
  readonly validated: boolean;
  /** Partial redirect checks that only together make a value safe. */
  readonly marker?: 'relative-start' | 'not-protocol-relative';
  /** The path is a request-like object whose sender was checked (`event.origin === …`): its input fields are trusted. */
  readonly trusted?: boolean;
}

export interface FnRef {
  readonly node: ts.SignatureDeclaration & { readonly body?: ts.Node | undefined };
  readonly file: string;
  /** The environment the function closes over (its module's, or the enclosing function's). */
  readonly closure: unknown;
  readonly cls: ClassRef | null;
}

export interface ClassRef {
  readonly node: ts.ClassLikeDeclaration;
  readonly file: string;
  readonly name: string;
}

/** One source-to-sink flow the engine found. */
export interface Flow {
  readonly kind: CheckKind;
  readonly sink: Loc;
  /** What was called or assigned at the sink (`db.query`, `innerHTML`). */
  readonly sinkName: string;
  readonly taint: TaintV;
}
