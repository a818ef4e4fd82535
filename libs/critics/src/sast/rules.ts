import { ALL_KINDS_MASK, type CheckKind, maskOf } from './model.js';

// The catalogues the taint engine matches against. Names are matched on the syntax tree (no type
// checker), so each list says what it is for; README.md documents the rules and their limits.

/** Identifiers that are a request or framework context when nothing else binds them. */
export const REQUEST_NAMES = new Set(['req', 'request', 'ctx', 'event', 'evt', 'incomingRequest']);

/** Type names (last segment) whose parameters are requests. */
export const REQUEST_TYPE = /^(Request|IncomingMessage|FastifyRequest|NextRequest|NextApiRequest|HttpRequest|ExpressRequest|Context|ParameterizedContext|APIGatewayProxyEvent\w*|APIGatewayEvent|ALBEvent|HonoRequest)$/;

/** Request fields that carry client input. */
export const REQUEST_INPUT_FIELDS = new Set([
  'query',
  'body',
  'params',
  'headers',
  'cookies',
  'signedCookies',
  'url',
  'originalUrl',
  'path',
  'hostname',
  'host',
  'files',
  'file',
  'rawBody',
  'queryStringParameters',
  'multiValueQueryStringParameters',
  'pathParameters',
  'multiValueHeaders',
  'searchParams',
  'href',
  'search',
  'pathname',
]);
/** Request fields that are themselves request-like objects. */
export const REQUEST_NESTED = new Set(['request', 'req', 'nextUrl', 'raw']);
/** Request fields that are always strings (never operator objects). */
export const REQUEST_SCALAR_FIELDS = new Set(['params', 'headers', 'url', 'originalUrl', 'path', 'hostname', 'host', 'pathParameters', 'href', 'search', 'pathname']);
/** Fields that hand over the whole client object (mass assignment when stored as is). */
export const REQUEST_WHOLE_FIELDS = new Set(['body', 'query', 'rawBody']);
/** Methods of a request that return client input. */
export const REQUEST_INPUT_METHODS = new Set(['get', 'header', 'param', 'query', 'queries', 'json', 'text', 'formData', 'arrayBuffer', 'blob', 'cookie', 'parseBody', 'getAll', 'valid']);
/** Request methods whose result is the whole client object. */
export const REQUEST_WHOLE_METHODS = new Set(['json', 'formData', 'parseBody']);

/** Nest parameter decorators that inject client input, and those that inject the request. */
export const NEST_INPUT_DECORATORS = new Set([
  'Body',
  'Query',
  'Param',
  'Headers',
  'Args',
  'Cookies',
  'UploadedFile',
  'UploadedFiles',
  'Payload',
  // routing-controllers
  'QueryParam',
  'QueryParams',
  'Params',
  'BodyParam',
  'HeaderParam',
  'HeaderParams',
  'CookieParam',
  'CookieParams',
]);
export const NEST_REQUEST_DECORATORS = new Set(['Req', 'Request']);
/** Nest pipes that turn the input into a safe scalar. */
export const NEST_SAFE_PIPES = /^(ParseIntPipe|ParseFloatPipe|ParseBoolPipe|ParseUUIDPipe|ParseEnumPipe|ParseArrayPipe)$/;
/** class-validator decorators that make a DTO class a validated schema. */
export const CLASS_VALIDATOR_DECORATOR = /^(Is[A-Z]\w*|Min|Max|MinLength|MaxLength|Length|Matches|ValidateNested|Equals|NotEquals|ArrayMinSize|ArrayMaxSize|Contains|NotContains|Allow)$/;

/** Methods that register a route handler; the handler's first parameter is the request. */
export const ROUTE_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'del', 'all', 'use', 'options', 'head', 'any', 'route', 'on']);

/** Array and promise methods whose callback receives the receiver's elements / resolved value. */
export const ELEMENT_CALLBACK_METHODS = new Set(['map', 'forEach', 'filter', 'find', 'findLast', 'some', 'every', 'flatMap', 'reduce', 'reduceRight', 'sort', 'findIndex', 'then', 'finally']);

/** Methods whose result carries no attacker-controlled text (booleans, numbers, lengths). */
export const SAFE_RESULT_METHODS = new Set([
  'includes',
  'startsWith',
  'endsWith',
  'has',
  'test',
  'some',
  'every',
  'indexOf',
  'lastIndexOf',
  'findIndex',
  'search',
  'localeCompare',
  'isArray',
  'charCodeAt',
  'codePointAt',
  'getTime',
  'valueOf',
  'digest',
  'size',
  'count',
  'isValid',
  'hasOwnProperty',
]);

/** Free functions that turn any input into a number or boolean. */
export const NUMERIC_FUNCTIONS = new Set(['Number', 'parseInt', 'parseFloat', 'Boolean', 'BigInt', 'isNaN', 'isFinite']);

/** Free functions and module members that pass taint from their arguments to their result. */
export const PASS_THROUGH_FUNCTIONS = new Set([
  'String',
  'decodeURIComponent',
  'decodeURI',
  'unescape',
  'atob',
  'btoa',
  'format',
  'sprintf',
  'vsprintf',
  'concat',
  'join',
  'trim',
  'structuredClone',
  'Array',
]);
export const PASS_THROUGH_MODULES = new Set(['util', 'querystring', 'url', 'string_decoder', 'buffer', 'qs']);

/** Sanitiser names: the check kinds a call of that name makes its result clean for. */
export function sanitiserKinds(name: string, receiver: string): number {
  const full = receiver === '' ? name : `${receiver}.${name}`;
  if (/^(DOMPurify|purify)\.sanitize$/i.test(full) || /^(sanitizeHtml|sanitizeHTML|xss|filterXSS|escapeHtml|escapeHTML|htmlEscape|encodeHTML|htmlEncode|escapeXml|encodeForHTML)$/.test(name)) {
    return maskOf(['xss']);
  }
  if (/^(he|entities|validator|lodash|_|Handlebars|escaper)\.(encode|escape|escapeExpression)$/.test(full)) return maskOf(['xss']);
  if (/^(mysql|SqlString|sqlstring|connection|conn|pool|db|client)\.(escape|escapeId)$/.test(full) || /^(escapeLiteral|escapeIdentifier|escapeSql|escapeSQL|sqlEscape|quoteIdentifier|quoteLiteral|pgFormat)$/.test(name)) {
    return maskOf(['sql']);
  }
  if (/^(shellEscape|shellescape|escapeShellArg|escapeShell|shellQuote|quoteShellArg)$/.test(name) || /^(shellQuote|shell-quote|shq)\.quote$/.test(full)) return maskOf(['command']);
  if (/^(sanitizeFilename|sanitizeFileName|sanitizePath|safeFilename)$/.test(name)) return maskOf(['path']);
  if (name === 'encodeURIComponent') return maskOf(['xss', 'redirect']);
  if (name === 'encodeURI') return maskOf(['xss']);
  // A project's own escaping helper: trust the name for the kinds it names.
  if (/escape|saniti[sz]e|purify|encode/i.test(name) && !/decode|unescape/i.test(name)) {
    const lower = name.toLowerCase();
    const kinds: CheckKind[] = [];
    if (/html|xss|markup|entities/.test(lower)) kinds.push('xss');
    if (/sql|query|literal|identifier/.test(lower)) kinds.push('sql');
    if (/shell|cmd|command|arg/.test(lower)) kinds.push('command');
    if (/path|file/.test(lower)) kinds.push('path');
    if (/url|redirect|uri/.test(lower)) kinds.push('redirect', 'xss');
    return kinds.length === 0 ? maskOf(['xss', 'sql', 'command', 'path', 'redirect', 'code']) : maskOf(kinds);
  }
  return 0;
}

/** Calls that, as a guard (`if (!isValid(x)) return`), vouch for their argument. */
export function isValidatorName(name: string): boolean {
  if (/^(isArray|isBuffer|isEmpty|isNil|isNull|isUndefined|isObject|isString|isPlainObject|isAuthenticated|isAdmin|hasOwnProperty|hasOwn|isDirectory|isFile)$/.test(name)) return false;
  return /^(is|has)[A-Z0-9_]|^(validate|verify|check|allow|permit|ensure)|valid|allowed|permitted|whitelist|allowlist|safe/i.test(name);
}

/** Statement-level calls that throw unless their argument is valid (`assertSafe(x)`). */
export function isAssertionName(name: string): boolean {
  return /^(assert|ensure|validateOrReject|verify|check|validateOrThrow|must)/i.test(name) || /OrThrow$|OrReject$/.test(name);
}

/** SQL methods that take SQL text as their first argument, whatever the receiver. */
export const SQL_TEXT_METHODS = new Set([
  'query',
  '$queryRawUnsafe',
  '$executeRawUnsafe',
  'queryRawUnsafe',
  'executeRawUnsafe',
  'raw',
  'whereRaw',
  'orWhereRaw',
  'andWhereRaw',
  'havingRaw',
  'orHavingRaw',
  'orderByRaw',
  'groupByRaw',
  'joinRaw',
  'selectRaw',
  'fromRaw',
  'unsafe',
  'sqlQuery',
  'rawQuery',
]);
/** SQL methods that only mean "run SQL" on a database-like receiver. */
export const SQL_RECEIVER_METHODS = new Set(['literal', 'execute', 'exec', 'run', 'all', 'get', 'each', 'prepare', 'executeQuery', 'none', 'one', 'many', 'any', 'oneOrNone', 'manyOrNone', 'result', 'iterate', 'pluck']);
const DB_NAMES = new Set([
  'db',
  'database',
  'conn',
  'connection',
  'client',
  'pool',
  'knex',
  'sequelize',
  'sql',
  'sqlite',
  'sqlite3',
  'mysql',
  'pg',
  'pgp',
  'tx',
  'trx',
  'transaction',
  'manager',
  'entitymanager',
  'datasource',
  'queryrunner',
  'prisma',
  'stmt',
  'statement',
  'orm',
]);
/** Whether a receiver (`this.db`, `pool`, `usersDb`) looks like a database handle. */
export function isDbReceiver(receiverText: string): boolean {
  const last = receiverText.split('.').pop()?.replace(/\(.*$/, '') ?? '';
  return DB_NAMES.has(last.toLowerCase()) || /(Db|DB|Database|Pool|Connection|Client|Sql|SQL|Knex|Sqlite)$/.test(last);
}
/** Query-builder methods whose first argument is raw SQL when it is a built string. */
export const SQL_BUILDER_METHODS = new Set(['where', 'andWhere', 'orWhere', 'having', 'andHaving', 'orHaving', 'orderBy', 'addOrderBy', 'groupBy', 'addGroupBy', 'select', 'addSelect', 'innerJoin', 'leftJoin', 'from', 'setParameters']);
/** Tagged templates that bind their interpolations as parameters (or escape them). */
export const SAFE_TEMPLATE_TAGS = /^(sql|SQL|Prisma\.sql|sqltag|gql|graphql|html|svg|css|\$|execa\.\$|cmd|sh|escape)$/;

export const CHILD_PROCESS_SHELL_METHODS = new Set(['exec', 'execSync']);
export const CHILD_PROCESS_SPAWN_METHODS = new Set(['spawn', 'spawnSync', 'execFile', 'execFileSync', 'fork']);
export const SHELL_PROGRAMS = /^(sh|bash|zsh|dash|ksh|fish|cmd|cmd\.exe|powershell|pwsh|\/bin\/sh|\/bin\/bash|\/usr\/bin\/env)$/;

export const VM_CODE_METHODS = new Set(['runInNewContext', 'runInThisContext', 'runInContext', 'compileFunction', 'Script', 'SourceTextModule']);

/** fs functions and the argument positions that are paths. */
export const FS_PATH_ARGS: ReadonlyMap<string, readonly number[]> = new Map<string, readonly number[]>([
  ...[
    'readFile',
    'readFileSync',
    'writeFile',
    'writeFileSync',
    'appendFile',
    'appendFileSync',
    'createReadStream',
    'createWriteStream',
    'unlink',
    'unlinkSync',
    'rm',
    'rmSync',
    'rmdir',
    'rmdirSync',
    'mkdir',
    'mkdirSync',
    'readdir',
    'readdirSync',
    'stat',
    'statSync',
    'lstat',
    'lstatSync',
    'access',
    'accessSync',
    'exists',
    'existsSync',
    'open',
    'openSync',
    'opendir',
    'opendirSync',
    'truncate',
    'truncateSync',
    'chmod',
    'chmodSync',
    'chown',
    'chownSync',
    'readlink',
    'readlinkSync',
    'utimes',
    'utimesSync',
    'watch',
    'watchFile',
    'outputFile',
    'outputFileSync',
    'readJson',
    'readJsonSync',
    'readJSON',
    'writeJson',
    'writeJsonSync',
    'outputJson',
    'remove',
    'removeSync',
    'emptyDir',
    'ensureDir',
    'ensureFile',
    'pathExists',
  ].map((name) => [name, [0]] as const),
  ...['copyFile', 'copyFileSync', 'rename', 'renameSync', 'link', 'linkSync', 'symlink', 'symlinkSync', 'cp', 'cpSync', 'copy', 'copySync', 'move', 'moveSync'].map(
    (name) => [name, [0, 1]] as const,
  ),
]);
export const FS_MODULES = new Set(['fs', 'fs-extra', 'graceful-fs', 'original-fs', 'fs/promises']);

/** Receivers that are HTTP responses (for res.send / res.redirect and friends). */
export const RESPONSE_RECEIVER = /^(res|response|resp|reply|ctx|c|context|h|this\.res|ctx\.res|ctx\.response|event\.node\.res)$/;

/** Methods that write data to a store; a whole request object passed to them is mass assignment. */
export const STORE_WRITE_METHODS = new Set([
  'create',
  'createMany',
  'insert',
  'insertMany',
  'insertOne',
  'update',
  'updateMany',
  'updateOne',
  'upsert',
  'save',
  'findOneAndUpdate',
  'findByIdAndUpdate',
  'replaceOne',
  'bulkCreate',
  'values',
  'set',
  'build',
  'assign',
]);
/** MongoDB-style query methods whose filter values must be scalars. */
export const NOSQL_QUERY_METHODS = new Set([
  'find',
  'findOne',
  'findOneAndUpdate',
  'findOneAndDelete',
  'findOneAndReplace',
  'updateOne',
  'updateMany',
  'deleteOne',
  'deleteMany',
  'countDocuments',
  'exists',
  'distinct',
]);

/** Repo functions whose names say they validate/parse/log: passing raw input to them is fine. */
export const NOT_BUSINESS_LOGIC = /^(validate|parse|sanitize|sanitise|is|to|check|assert|normalize|normalise|escape|log|debug|info|warn|error|trace|handle|next|send|render|respond|reply|json|coerce|safe|clean|verify|compare|hash|encode|decode|format)/i;

/** The mask of every sink kind (clean for everything). */
export const CLEAN_ALL = ALL_KINDS_MASK;
