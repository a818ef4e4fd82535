import type { Val } from '../model.js';
import { flatten } from '../values.js';
import type { CallView, FrameworkModel } from './types.js';

/** Methods that take SQL text as their first argument, whatever the receiver (pg, mysql, knex raw, Prisma unsafe, postgres.js unsafe…). */
const SQL_TEXT_METHODS = new Set([
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
/** Methods that only mean "run SQL" on a database-looking receiver (sqlite, better-sqlite3, pg-promise, mssql…). */
const SQL_RECEIVER_METHODS = new Set([
  'literal',
  'execute',
  'exec',
  'run',
  'all',
  'get',
  'each',
  'prepare',
  'executeQuery',
  'none',
  'one',
  'many',
  'any',
  'oneOrNone',
  'manyOrNone',
  'result',
  'iterate',
  'pluck',
]);
/** …of which these are too common elsewhere (`map.get`, `router.all`) unless the receiver is a sqlite-style handle. */
const SQLITE_ONLY = new Set(['get', 'all', 'run', 'each', 'pluck', 'iterate']);
const SQLITE_STYLE_RECEIVER = /(^|\.)(db|database|sqlite|sqlite3|stmt|statement)$|(Db|DB|Database|Stmt|Statement)$/;
/** Query-builder methods whose first argument is raw SQL when it is a built string (knex, TypeORM, Sequelize). */
const SQL_BUILDER_METHODS = new Set([
  'where',
  'andWhere',
  'orWhere',
  'having',
  'andHaving',
  'orHaving',
  'orderBy',
  'addOrderBy',
  'groupBy',
  'addGroupBy',
  'select',
  'addSelect',
  'innerJoin',
  'leftJoin',
  'from',
  'setParameters',
]);

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

/** The SQL text of a call, when the call runs SQL: `pool.query(text)`, `db.all(text)`, `qb.where(built)`, `query({ text })`. */
function sqlText(call: CallView): Val {
  const { name, receiverText } = call;
  let sql: Val = null;
  if (SQL_TEXT_METHODS.has(name) && receiverText !== 'String') sql = call.args[0] ?? null;
  else if (
    SQL_RECEIVER_METHODS.has(name) &&
    isDbReceiver(receiverText) &&
    (!SQLITE_ONLY.has(name) || SQLITE_STYLE_RECEIVER.test(receiverText))
  )
    sql = call.args[0] ?? null;
  else if (SQL_BUILDER_METHODS.has(name) && call.argNodes[0] !== undefined) {
    // A builder's where('name', value) binds the value; only a string built from input is SQL text.
    const built = flatten(call.args[0] ?? null);
    if (built !== null && built.built) sql = call.args[0] ?? null;
  }
  if (sql !== null && sql.k === 'obj' && sql.literal !== null)
    sql = sql.fields.get('sql') ?? sql.fields.get('text') ?? sql.fields.get('query') ?? null;
  return sql !== null && sql.k === 'obj' ? null : sql;
}

/**
 * SQL clients and query builders, recognised by method name (no type checker): SQL text built
 * from input. Bound parameters (a values array, a tagged `sql` template) are not SQL text.
 */
export const sqlModel: FrameworkModel = {
  id: 'sql',
  description:
    'query/raw/whereRaw/$queryRawUnsafe/unsafe… with SQL text, exec/run/get/all/prepare on database-looking receivers, query-builder where/orderBy… with a built string.',
  sinks: [
    {
      kind: 'sql',
      call: { method: [...SQL_TEXT_METHODS, ...SQL_RECEIVER_METHODS, ...SQL_BUILDER_METHODS] },
      value: sqlText,
    },
  ],
};
