/**
 * The review itself: which files are migrations and how up and down files pair, each migration's
 * facts (SQL or module, read by the sibling readers), and the rules over the whole ordered history
 * (irreversible destructive changes, NOT NULL without default or backfill, narrowing type changes,
 * unindexed foreign keys). Separate from the readers so the rules only ever see events, whatever
 * the migration was written in, and from the critic so they can be called without a repository.
 */
import { posix } from 'node:path';
import { moduleEvents } from './module-events.js';
import { type MigrationEvent, sqlEvents, sqlUpPart } from './sql-events.js';

/** What one migration does, in a dialect-neutral form. */
export interface MigrationFacts {
  readonly file: string;
  readonly hasDown: boolean;
  readonly mysql: boolean;
  readonly events: readonly MigrationEvent[];
}

/** Migrations: files under a migrations directory, SQL files, and knex/kysely migration modules. */
export function isMigrationFile(file: string): boolean {
  return /(^|\/)migrations?\//i.test(file) ? /\.(sql|ts|js|mjs|cjs|mts|cts)$/.test(file) : /\.sql$/i.test(file);
}

/** Reads a migration file's facts (SQL or a knex/kysely module). */
export function migrationFacts(file: string, text: string, pairedDownExists: boolean): MigrationFacts {
  if (/\.sql$/i.test(file)) {
    const { up, hasDown } = sqlUpPart(text);
    return {
      file,
      hasDown: hasDown || pairedDownExists,
      mysql: /ENGINE\s*=|AUTO_INCREMENT|`/i.test(text),
      events: sqlEvents(up),
    };
  }
  const { events, hasDown } = moduleEvents(file, text);
  return { file, hasDown, mysql: false, events };
}

/** `x.up.sql` ↔ `x.down.sql`, `V1__x.sql` ↔ `U1__x.sql`, `dir/up.sql` ↔ `dir/down.sql`. */
export function pairedDownFile(file: string): string | null {
  const base = posix.basename(file);
  const dir = posix.dirname(file);
  if (/\.up\.sql$/i.test(base)) return posix.join(dir, base.replace(/\.up\.sql$/i, '.down.sql'));
  if (/^V(\d[\w.]*)__/.test(base)) return posix.join(dir, base.replace(/^V/, 'U'));
  if (/^up\.sql$/i.test(base)) return posix.join(dir, 'down.sql');
  return null;
}

export function isDownFile(file: string): boolean {
  return /\.down\.sql$|(^|\/)down\.sql$|(^|\/)U\d[\w.]*__[^/]*\.sql$/i.test(file);
}

const NARROWER: readonly [RegExp, RegExp][] = [
  [/^(text|clob|longtext|mediumtext)$/i, /^(n?varchar|character varying|char|n?char)\s*\(/i],
  [/^bigint|int8$/i, /^(int|integer|int4|smallint|int2|tinyint|mediumint)\b/i],
  [/^(int|integer|int4)$/i, /^(smallint|int2|tinyint)\b/i],
  [/^(timestamptz|timestamp with time zone|timestamp|datetime)$/i, /^date$/i],
  [/^(double|double precision|float8|numeric|decimal)\b/i, /^(real|float4|int|integer|smallint)\b/i],
  [/^(jsonb?)$/i, /^(n?varchar|char)\s*\(/i],
];

/** Whether changing a column from `from` to `to` can lose data; null when the old type is unknown. */
export function isNarrowing(from: string | undefined, to: string): boolean | null {
  if (from === undefined || from === '') return null;
  const size = (t: string): number | null => {
    const m = /\(\s*(\d+)/.exec(t);
    return m === null ? null : Number(m[1]);
  };
  const base = (t: string): string => t.replace(/\(.*$/, '').trim().toLowerCase();
  if (base(from) === base(to)) {
    const a = size(from);
    const b = size(to);
    return a !== null && b !== null ? b < a : a === null && b !== null;
  }
  return NARROWER.some(([wide, narrow]) => wide.test(base(from)) && narrow.test(to.trim()));
}

interface Problem {
  readonly file: string;
  readonly line: number;
  readonly type: string;
  readonly severity: 'critical' | 'medium';
  readonly score: number;
  readonly category: 'correctness' | 'performance';
  readonly title: string;
  readonly current: string;
  readonly expected: string;
  readonly observable: string[];
}

/**
 * The rules over every migration of the repository (ordered by path, the usual migration order):
 * destructive changes without a down migration, NOT NULL columns added to existing tables without
 * a default, foreign keys whose referencing column has no index. Only migrations under review are
 * reported; the others provide context (which tables exist, which indexes were created).
 */
export function reviewMigrations(all: readonly MigrationFacts[], reviewed: ReadonlySet<string>): Problem[] {
  const problems: Problem[] = [];
  const columnTypes = new Map<string, string>();
  const indexed = new Set<string>();
  for (const facts of all)
    for (const event of facts.events) if (event.kind === 'index') indexed.add(`${event.table}.${event.column}`);
  for (const facts of all) {
    const created = new Set(facts.events.filter((e) => e.kind === 'create-table').map((e) => e.table));
    const backfilled = new Set(facts.events.filter((e) => e.kind === 'backfill').map((e) => e.table));
    const report = reviewed.has(facts.file);
    for (const event of facts.events) {
      if (event.kind === 'create-table')
        for (const [column, type] of event.columns) columnTypes.set(`${event.table}.${column}`, type);
      if (event.kind === 'add-column') columnTypes.set(`${event.table}.${event.column}`, event.type);
      if (!report) {
        if (event.kind === 'alter-type') columnTypes.set(`${event.table}.${event.column}`, event.type);
        continue;
      }
      const noWayBack = !facts.hasDown;
      const destructive = (what: string, type: string): void => {
        if (!noWayBack) return;
        problems.push({
          file: facts.file,
          line: event.line,
          type,
          severity: 'critical',
          score: 9,
          category: 'correctness',
          title: `Irreversible migration: ${what} without a down migration`,
          current: `${facts.file}:${event.line} ${what}; the migration has no down step, so a failed deploy cannot be rolled back and the data is gone.`,
          expected:
            'Destructive changes ship with a way back: a down migration that restores the structure (and a backup or copy of the data), or a two-step change (stop using the column/table first, drop it in a later release).',
          observable: [
            'running the migration up and then down on a database with rows restores the previous schema',
            'the application still works against the schema before the migration (expand/contract)',
          ],
        });
      };
      switch (event.kind) {
        case 'drop-table':
          destructive(`DROP TABLE ${event.table}`, 'db/drop-table');
          break;
        case 'drop-schema':
          destructive(`DROP SCHEMA/DATABASE ${event.table}`, 'db/drop-schema');
          break;
        case 'truncate':
          destructive(`TRUNCATE ${event.table}`, 'db/truncate');
          break;
        case 'delete-all':
          destructive(`DELETE FROM ${event.table} without WHERE`, 'db/delete-all');
          break;
        case 'drop-column':
          destructive(`DROP COLUMN ${event.table}.${event.column}`, 'db/drop-column');
          break;
        case 'alter-type': {
          const key = `${event.table}.${event.column}`;
          const narrowing = isNarrowing(columnTypes.get(key), event.type);
          if (narrowing !== false)
            destructive(
              `column ${key} changed to ${event.type}${narrowing === null ? ' (old type unknown: may narrow)' : ' (narrows the type)'}`,
              'db/type-narrowing',
            );
          columnTypes.set(key, event.type);
          break;
        }
        case 'add-column':
          if (event.notNull && !event.hasDefault && !created.has(event.table)) {
            problems.push({
              file: facts.file,
              line: event.line,
              type: 'db/not-null-without-default',
              severity: 'critical',
              score: 8,
              category: 'correctness',
              title: `NOT NULL column ${event.table}.${event.column} added without a default`,
              current: `${facts.file}:${event.line} adds ${event.column} NOT NULL to the existing table ${event.table} without a DEFAULT: the migration fails on any table that already has rows.`,
              expected:
                'The column is added with a DEFAULT (or added nullable, backfilled, then set NOT NULL), so the migration succeeds on a table with existing rows.',
              observable: [
                `running the migration on a database where ${event.table} already has rows succeeds`,
                'existing rows get the intended value in the new column',
              ],
            });
          }
          break;
        case 'set-not-null':
          if (!backfilled.has(event.table)) {
            problems.push({
              file: facts.file,
              line: event.line,
              type: 'db/not-null-without-default',
              severity: 'critical',
              score: 7,
              category: 'correctness',
              title: `${event.table}.${event.column} set NOT NULL without a backfill`,
              current: `${facts.file}:${event.line} sets ${event.column} NOT NULL on the existing table ${event.table} with no UPDATE filling NULLs first: the migration fails if any row holds NULL.`,
              expected:
                'NULLs are backfilled (UPDATE … SET … WHERE … IS NULL) in the same migration before the constraint is added, or the column gets a default.',
              observable: [
                `running the migration on a database with a NULL in ${event.table}.${event.column} succeeds`,
              ],
            });
          }
          break;
        case 'foreign-key':
          if (!facts.mysql && !indexed.has(`${event.table}.${event.column}`)) {
            problems.push({
              file: facts.file,
              line: event.line,
              type: 'db/unindexed-foreign-key',
              severity: 'medium',
              score: 5,
              category: 'performance',
              title: `Foreign key ${event.table}.${event.column} has no index`,
              current: `${facts.file}:${event.line} makes ${event.table}.${event.column} reference ${event.references}, but no migration creates an index starting with ${event.column}: joins and ON DELETE checks on ${event.references} scan ${event.table}.`,
              expected: `An index on ${event.table}(${event.column}) is created together with the foreign key.`,
              observable: [
                `the schema has an index whose first column is ${event.table}.${event.column}`,
                `EXPLAIN of a lookup by ${event.column} uses an index scan`,
              ],
            });
          }
          break;
        case 'create-table':
        case 'index':
        case 'backfill':
          break;
      }
    }
  }
  return problems;
}
