import { posix } from 'node:path';
import ts from 'typescript';
import type { CriticContext, CriticDefinition, FindingDraft } from '../critic.js';
import { defineCritic, draftFinding } from '../plumbing/define.js';

/** What one migration does, in a dialect-neutral form. */
export interface MigrationFacts {
  readonly file: string;
  readonly hasDown: boolean;
  readonly mysql: boolean;
  readonly events: readonly MigrationEvent[];
}

export type MigrationEvent =
  | {
      readonly kind: 'create-table';
      readonly table: string;
      readonly line: number;
      readonly columns: ReadonlyMap<string, string>;
    }
  | {
      readonly kind: 'drop-table' | 'truncate' | 'drop-schema' | 'delete-all';
      readonly table: string;
      readonly line: number;
    }
  | { readonly kind: 'drop-column'; readonly table: string; readonly column: string; readonly line: number }
  | {
      readonly kind: 'add-column';
      readonly table: string;
      readonly column: string;
      readonly type: string;
      readonly notNull: boolean;
      readonly hasDefault: boolean;
      readonly line: number;
    }
  | { readonly kind: 'set-not-null'; readonly table: string; readonly column: string; readonly line: number }
  | { readonly kind: 'backfill'; readonly table: string; readonly line: number }
  | {
      readonly kind: 'alter-type';
      readonly table: string;
      readonly column: string;
      readonly type: string;
      readonly line: number;
    }
  | {
      readonly kind: 'foreign-key';
      readonly table: string;
      readonly column: string;
      readonly line: number;
      readonly references: string;
    }
  | { readonly kind: 'index'; readonly table: string; readonly column: string; readonly line: number };

const DOWN_MARKER =
  /^\s*--\s*(migrate:down|\+migrate\s+down|\+goose\s+down|down\s+migration|down\b)|^\s*----\s*create above/im;

/** Migrations: files under a migrations directory, SQL files, and knex/kysely migration modules. */
export function isMigrationFile(file: string): boolean {
  return /(^|\/)migrations?\//i.test(file) ? /\.(sql|ts|js|mjs|cjs|mts|cts)$/.test(file) : /\.sql$/i.test(file);
}

function unquote(name: string): string {
  return (
    name
      .replace(/["`[\]]/g, '')
      .split('.')
      .pop()
      ?.toLowerCase() ?? name.toLowerCase()
  );
}

/** Blanks comments and string contents (keeping newlines) so statements can be split and matched safely. */
function blankComments(sql: string): string {
  return sql
    .replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' '))
    .replace(/--[^\n]*/g, (m) => ' '.repeat(m.length));
}

function statements(sql: string): { text: string; line: number }[] {
  const clean = blankComments(sql);
  const out: { text: string; line: number }[] = [];
  let start = 0;
  let quote: string | null = null;
  let dollar: string | null = null;
  for (let i = 0; i <= clean.length; i += 1) {
    const ch = clean[i] ?? ';';
    if (dollar !== null) {
      if (clean.startsWith(dollar, i)) {
        i += dollar.length - 1;
        dollar = null;
      }
      continue;
    }
    if (quote !== null) {
      if (ch === quote) quote = null;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      continue;
    }
    const tag = /^\$[A-Za-z_]*\$/.exec(clean.slice(i, i + 40));
    if (tag !== null) {
      dollar = tag[0];
      i += dollar.length - 1;
      continue;
    }
    if (ch === ';' || i === clean.length) {
      const text = clean.slice(start, i);
      const offset = text.search(/\S/);
      if (offset >= 0) out.push({ text: text.trim(), line: clean.slice(0, start + offset).split('\n').length });
      start = i + 1;
    }
  }
  return out;
}

const IDENT = '("[^"]+"|`[^`]+`|\\[[^\\]]+\\]|[\\w.]+)';

/** Splits on top-level commas; each part with its offset in `body` (after leading spaces). */
function splitTopLevel(body: string): { text: string; offset: number }[] {
  const parts: { text: string; offset: number }[] = [];
  let depth = 0;
  let start = 0;
  const push = (end: number): void => {
    const raw = body.slice(start, end);
    const lead = raw.length - raw.trimStart().length;
    if (raw.trim() !== '') parts.push({ text: raw.trim(), offset: start + lead });
  };
  for (let i = 0; i < body.length; i += 1) {
    const ch = body[i];
    if (ch === '(') depth += 1;
    if (ch === ')') depth -= 1;
    if (ch === ',' && depth === 0) {
      push(i);
      start = i + 1;
    }
  }
  push(body.length);
  return parts;
}

/** Collapses whitespace runs to one space, remembering where each character came from. */
function collapse(text: string): { text: string; origin: number[] } {
  let out = '';
  const origin: number[] = [];
  let space = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i] ?? '';
    if (/\s/.test(ch)) {
      if (!space) {
        out += ' ';
        origin.push(i);
      }
      space = true;
    } else {
      out += ch;
      origin.push(i);
      space = false;
    }
  }
  return { text: out, origin };
}

function columnsOf(list: string): string[] {
  return list.split(',').map((c) => unquote(c.trim().split(/\s+/)[0] ?? ''));
}

/** Reads the events of SQL text (one migration's up part). */
export function sqlEvents(sql: string, lineOffset = 0): MigrationEvent[] {
  const events: MigrationEvent[] = [];
  for (const { text, line: relLine } of statements(sql)) {
    const line = relLine + lineOffset;
    const collapsed = collapse(text);
    const upper = collapsed.text;
    // The line of a position in the collapsed statement.
    const lineAt = (index: number): number =>
      line + (text.slice(0, collapsed.origin[index] ?? 0).match(/\n/g)?.length ?? 0);
    let m: RegExpExecArray | null;
    if (
      (m = new RegExp(
        `^CREATE (?:UNLOGGED |TEMP(?:ORARY)? )?TABLE (?:IF NOT EXISTS )?${IDENT}\\s*\\(([\\s\\S]*)\\)`,
        'id',
      ).exec(upper)) !== null
    ) {
      const table = unquote(m[1] ?? '');
      const columns = new Map<string, string>();
      const bodyStart = m.indices?.[2]?.[0] ?? 0;
      for (const { text: part, offset } of splitTopLevel(m[2] ?? '')) {
        const line = lineAt(bodyStart + offset);
        const fk = /^(?:CONSTRAINT \S+ )?FOREIGN KEY\s*\(([^)]+)\)\s*REFERENCES\s+(\S+)/i.exec(part);
        if (fk !== null) {
          events.push({
            kind: 'foreign-key',
            table,
            column: columnsOf(fk[1] ?? '')[0] ?? '',
            line,
            references: unquote(fk[2] ?? ''),
          });
          continue;
        }
        const keyed =
          /^(?:CONSTRAINT \S+ )?(PRIMARY KEY|UNIQUE(?: KEY| INDEX)?|KEY|INDEX)\s*(?:\S+\s*)?\(([^)]+)\)/i.exec(part);
        if (keyed !== null) {
          events.push({ kind: 'index', table, column: columnsOf(keyed[2] ?? '')[0] ?? '', line });
          continue;
        }
        const col = new RegExp(`^${IDENT}\\s+(.+)$`, 'i').exec(part);
        if (col === null) continue;
        const column = unquote(col[1] ?? '');
        const rest = col[2] ?? '';
        columns.set(column, rest.split(/\s+/)[0] ?? '');
        if (/\bPRIMARY KEY\b|\bUNIQUE\b/i.test(rest)) events.push({ kind: 'index', table, column, line });
        const ref = /\bREFERENCES\s+(\S+)/i.exec(rest);
        if (ref !== null) events.push({ kind: 'foreign-key', table, column, line, references: unquote(ref[1] ?? '') });
      }
      events.push({ kind: 'create-table', table, line, columns });
      continue;
    }
    if ((m = new RegExp(`^DROP TABLE (?:IF EXISTS )?${IDENT}`, 'i').exec(upper)) !== null) {
      events.push({ kind: 'drop-table', table: unquote(m[1] ?? ''), line });
      continue;
    }
    if ((m = /^DROP (SCHEMA|DATABASE) (?:IF EXISTS )?(\S+)/i.exec(upper)) !== null) {
      events.push({ kind: 'drop-schema', table: unquote(m[2] ?? ''), line });
      continue;
    }
    if ((m = new RegExp(`^TRUNCATE (?:TABLE )?(?:ONLY )?${IDENT}`, 'i').exec(upper)) !== null) {
      events.push({ kind: 'truncate', table: unquote(m[1] ?? ''), line });
      continue;
    }
    if ((m = new RegExp(`^DELETE FROM ${IDENT}\\s*$`, 'i').exec(upper)) !== null) {
      events.push({ kind: 'delete-all', table: unquote(m[1] ?? ''), line });
      continue;
    }
    if ((m = new RegExp(`^UPDATE ${IDENT} SET `, 'i').exec(upper)) !== null) {
      events.push({ kind: 'backfill', table: unquote(m[1] ?? ''), line });
      continue;
    }
    if (
      (m = new RegExp(
        `^CREATE (?:UNIQUE )?INDEX (?:CONCURRENTLY )?(?:IF NOT EXISTS )?(?:${IDENT} )?ON (?:ONLY )?${IDENT}\\s*(?:USING \\w+\\s*)?\\(([^)]+)\\)`,
        'i',
      ).exec(upper)) !== null
    ) {
      events.push({ kind: 'index', table: unquote(m[2] ?? ''), column: columnsOf(m[3] ?? '')[0] ?? '', line });
      continue;
    }
    if ((m = new RegExp(`^ALTER TABLE (?:IF EXISTS )?(?:ONLY )?${IDENT}\\s+([\\s\\S]+)$`, 'id').exec(upper)) !== null) {
      const table = unquote(m[1] ?? '');
      const actionsStart = m.indices?.[2]?.[0] ?? 0;
      for (const { text: action, offset } of splitTopLevel(m[2] ?? '')) {
        const line = lineAt(actionsStart + offset);
        let a: RegExpExecArray | null;
        if (
          (a = new RegExp(`^DROP (?:COLUMN )?(?:IF EXISTS )?${IDENT}`, 'i').exec(action)) !== null &&
          !/^DROP (CONSTRAINT|INDEX|KEY|PRIMARY|FOREIGN|DEFAULT|NOT NULL)/i.test(action)
        ) {
          events.push({ kind: 'drop-column', table, column: unquote(a[1] ?? ''), line });
        } else if (
          (a = new RegExp(`^ADD (?:COLUMN )?(?:IF NOT EXISTS )?${IDENT}\\s+(.+)$`, 'i').exec(action)) !== null &&
          !/^ADD (CONSTRAINT|PRIMARY|FOREIGN|UNIQUE|INDEX|KEY|CHECK)\b/i.test(action)
        ) {
          const column = unquote(a[1] ?? '');
          const rest = a[2] ?? '';
          events.push({
            kind: 'add-column',
            table,
            column,
            type: rest.split(/\s+/)[0] ?? '',
            notNull: /\bNOT NULL\b/i.test(rest),
            hasDefault: /\bDEFAULT\b|\bGENERATED\b|\bIDENTITY\b|\bAUTO_INCREMENT\b|^(big|small)?serial\b/i.test(rest),
            line,
          });
          const ref = /\bREFERENCES\s+(\S+)/i.exec(rest);
          if (ref !== null)
            events.push({ kind: 'foreign-key', table, column, line, references: unquote(ref[1] ?? '') });
          if (/\bPRIMARY KEY\b|\bUNIQUE\b/i.test(rest)) events.push({ kind: 'index', table, column, line });
        } else if (
          (a = /^ADD (?:CONSTRAINT \S+ )?FOREIGN KEY\s*\(([^)]+)\)\s*REFERENCES\s+(\S+)/i.exec(action)) !== null
        ) {
          events.push({
            kind: 'foreign-key',
            table,
            column: columnsOf(a[1] ?? '')[0] ?? '',
            line,
            references: unquote(a[2] ?? ''),
          });
        } else if ((a = /^ADD (?:CONSTRAINT \S+ )?(?:PRIMARY KEY|UNIQUE)\s*\(([^)]+)\)/i.exec(action)) !== null) {
          events.push({ kind: 'index', table, column: columnsOf(a[1] ?? '')[0] ?? '', line });
        } else if ((a = new RegExp(`^ALTER (?:COLUMN )?${IDENT}\\s+SET NOT NULL`, 'i').exec(action)) !== null) {
          events.push({ kind: 'set-not-null', table, column: unquote(a[1] ?? ''), line });
        } else if (
          (a = new RegExp(
            `^(?:ALTER (?:COLUMN )?${IDENT}\\s+(?:SET DATA )?TYPE\\s+(.+)|MODIFY (?:COLUMN )?${IDENT}\\s+(.+))$`,
            'i',
          ).exec(action)) !== null
        ) {
          const column = unquote(a[1] ?? a[3] ?? '');
          const type = (a[2] ?? a[4] ?? '').split(/\s+USING\s+/i)[0]?.trim() ?? '';
          events.push({ kind: 'alter-type', table, column, type, line });
        }
      }
    }
  }
  return events;
}

/** Splits an SQL migration into its up part (and tells whether a down part with content exists). */
function sqlUpPart(text: string): { up: string; hasDown: boolean } {
  const marker = DOWN_MARKER.exec(text);
  if (marker === null) return { up: text, hasDown: false };
  const upMarker = /^\s*--\s*(migrate:up|\+migrate\s+up|\+goose\s+up)/im.exec(text);
  const downText = text.slice(marker.index + marker[0].length);
  const up =
    upMarker !== null && upMarker.index > marker.index ? text.slice(upMarker.index) : text.slice(0, marker.index);
  return { up, hasDown: statements(downText).length > 0 };
}

// ───────────── knex / kysely migration modules ─────────────

interface Step {
  readonly name: string;
  readonly args: readonly ts.Expression[];
  /** The method name (`addColumn` in `.addColumn(…)`): where the step is written. */
  readonly node: ts.Node;
}

function chainOf(call: ts.CallExpression): { root: ts.Expression; steps: Step[] } {
  const steps: Step[] = [];
  let expr: ts.Expression = call;
  while (ts.isCallExpression(expr) && ts.isPropertyAccessExpression(expr.expression)) {
    steps.unshift({ name: expr.expression.name.text, args: expr.arguments, node: expr.expression.name });
    expr = expr.expression.expression;
    while (ts.isPropertyAccessExpression(expr) && !ts.isCallExpression(expr)) expr = expr.expression;
  }
  return { root: expr, steps };
}

function str(node: ts.Expression | undefined): string | null {
  return node !== undefined && ts.isStringLiteralLike(node) ? node.text : null;
}

function strings(node: ts.Expression | undefined): string[] {
  if (node === undefined) return [];
  if (ts.isArrayLiteralExpression(node))
    return node.elements.map((e) => (ts.isExpression(e) ? str(e) : null)).filter((s): s is string => s !== null);
  const s = str(node);
  return s === null ? [] : [s];
}

const KNEX_COLUMN_TYPES =
  /^(string|text|integer|bigInteger|bigint|tinyint|smallint|mediumint|boolean|uuid|timestamp|timestamps|datetime|date|time|decimal|float|double|json|jsonb|enu|enum|specificType|binary|increments|bigIncrements)$/;

function exportedDown(sf: ts.SourceFile): boolean {
  let body: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionDeclaration(node) && node.name?.text === 'down') body = node.body;
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.name.text === 'down' &&
      node.initializer !== undefined
    )
      body = node.initializer;
    if (ts.isBinaryExpression(node) && /^(exports|module\.exports)\.down$/.test(node.left.getText(sf)))
      body = node.right;
    if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && node.name.text === 'down')
      body = node.initializer;
    if (ts.isMethodDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === 'down') body = node.body;
    ts.forEachChild(node, visit);
  };
  visit(sf);
  if (body === undefined) return false;
  const text = body.getText(sf);
  const open = text.indexOf('{');
  const close = text.lastIndexOf('}');
  // An expression-bodied down does something; a block that is empty or only throws is no way back.
  if (open < 0 || close < open || /=>\s*[^{\s]/.test(text.slice(0, open + 1))) return true;
  const inner = text.slice(open + 1, close).trim();
  return inner !== '' && !/^throw\b[^;]*;?$/.test(inner);
}

function upNode(sf: ts.SourceFile): ts.Node {
  let found: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (found !== undefined) return;
    if (ts.isFunctionDeclaration(node) && node.name?.text === 'up') found = node;
    else if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === 'up') found = node;
    else if (ts.isBinaryExpression(node) && /^(exports|module\.exports)\.up$/.test(node.left.getText(sf)))
      found = node.right;
    else if (
      (ts.isPropertyAssignment(node) || ts.isMethodDeclaration(node)) &&
      ts.isIdentifier(node.name) &&
      node.name.text === 'up'
    )
      found = node;
    else ts.forEachChild(node, visit);
  };
  visit(sf);
  return found ?? sf;
}

/** An object literal's properties as source text (`allowNull` → `false`). */
function props(node: ts.ObjectLiteralExpression, sf: ts.SourceFile): Map<string, string> {
  const out = new Map<string, string>();
  for (const property of node.properties) {
    if (ts.isPropertyAssignment(property))
      out.set(property.name.getText(sf).replace(/['"]/g, ''), property.initializer.getText(sf));
    else if (ts.isShorthandPropertyAssignment(property)) out.set(property.name.text, property.name.text);
  }
  return out;
}

function objectProp(node: ts.Expression | undefined, name: string): ts.Expression | undefined {
  if (node === undefined || !ts.isObjectLiteralExpression(node)) return undefined;
  for (const property of node.properties)
    if (ts.isPropertyAssignment(property) && property.name.getText().replace(/['"]/g, '') === name)
      return property.initializer;
  return undefined;
}

/** `{ model: 'Users', key: 'id' }` or `'users'` → the referenced table. */
function referencedTable(text: string): string {
  return unquote(/model\s*:\s*['"]([^'"]+)['"]/.exec(text)?.[1] ?? /['"]([^'"]+)['"]/.exec(text)?.[1] ?? text);
}

/** Reads the events of a knex, kysely, Sequelize or TypeORM migration module (its `up`). */
export function moduleEvents(file: string, text: string): { events: MigrationEvent[]; hasDown: boolean } {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const events: MigrationEvent[] = [];
  const lineOf = (node: ts.Node): number => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;

  const tableBuilder = (table: string, creating: boolean, callback: ts.Expression): void => {
    if (!ts.isArrowFunction(callback) && !ts.isFunctionExpression(callback)) return;
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isExpressionStatement(node.parent)) {
        const { steps } = chainOf(node);
        const head = steps[0];
        if (head !== undefined) {
          const names = steps.map((s) => s.name);
          const column = str(head.args[0]);
          if (KNEX_COLUMN_TYPES.test(head.name) && column !== null) {
            const line = lineOf(node);
            const altering = names.includes('alter');
            if (altering) {
              events.push({
                kind: 'alter-type',
                table,
                column,
                type: `${head.name}(${head.args
                  .slice(1)
                  .map((a) => a.getText(sf))
                  .join(',')})`,
                line,
              });
            } else {
              if (!creating) {
                events.push({
                  kind: 'add-column',
                  table,
                  column,
                  type: head.name,
                  notNull: names.includes('notNullable'),
                  hasDefault: names.includes('defaultTo') || /increments/i.test(head.name),
                  line,
                });
              }
              if (names.includes('references') || names.includes('inTable')) {
                const ref = steps.find((s) => s.name === 'inTable' || s.name === 'references');
                events.push({ kind: 'foreign-key', table, column, line, references: str(ref?.args[0]) ?? '' });
              }
              if (
                names.some((n) => n === 'index' || n === 'unique' || n === 'primary') ||
                /increments/i.test(head.name)
              )
                events.push({ kind: 'index', table, column, line });
            }
          } else if (head.name === 'dropColumn' || head.name === 'dropColumns') {
            for (const arg of head.args)
              for (const c of strings(arg)) events.push({ kind: 'drop-column', table, column: c, line: lineOf(node) });
          } else if (head.name === 'foreign') {
            const ref = steps.find((s) => s.name === 'inTable' || s.name === 'references');
            for (const c of strings(head.args[0]).slice(0, 1))
              events.push({
                kind: 'foreign-key',
                table,
                column: c,
                line: lineOf(node),
                references: str(ref?.args[0]) ?? '',
              });
          } else if (head.name === 'index' || head.name === 'unique' || head.name === 'primary') {
            for (const c of strings(head.args[0]).slice(0, 1))
              events.push({ kind: 'index', table, column: c, line: lineOf(node) });
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(callback.body);
  };

  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const first = str(node.arguments[0]);
      const line = lineOf(node);
      const second = node.arguments[1];
      if ((method === 'dropTable' || method === 'dropTableIfExists') && first !== null)
        events.push({ kind: 'drop-table', table: unquote(first), line });
      else if ((method === 'removeColumn' || method === 'dropColumn') && first !== null && str(second) !== null) {
        events.push({ kind: 'drop-column', table: unquote(first), column: unquote(str(second) ?? ''), line });
      } else if (
        method === 'createTable' &&
        first !== null &&
        second !== undefined &&
        ts.isObjectLiteralExpression(second)
      ) {
        // Sequelize: queryInterface.createTable('Orders', { userId: { type, references: { model } } })
        const table = unquote(first);
        events.push({ kind: 'create-table', table, line, columns: new Map() });
        for (const property of second.properties) {
          if (!ts.isPropertyAssignment(property) || !ts.isObjectLiteralExpression(property.initializer)) continue;
          const column = unquote(property.name.getText(sf).replace(/['"]/g, ''));
          const def = props(property.initializer, sf);
          if (def.has('references'))
            events.push({
              kind: 'foreign-key',
              table,
              column,
              line: lineOf(property),
              references: referencedTable(def.get('references') ?? ''),
            });
          if (/^true$/.test(def.get('primaryKey') ?? '') || /^true$/.test(def.get('unique') ?? ''))
            events.push({ kind: 'index', table, column, line: lineOf(property) });
        }
      } else if (method === 'addColumn' && first !== null && second !== undefined) {
        // Sequelize addColumn(table, column, { allowNull: false }) / TypeORM addColumn(table, new TableColumn({ … }))
        const table = unquote(first);
        const column = str(second);
        const definition =
          column !== null ? node.arguments[2] : ts.isNewExpression(second) ? second.arguments?.[0] : undefined;
        if (definition !== undefined && ts.isObjectLiteralExpression(definition)) {
          const def = props(definition, sf);
          const name = unquote(column ?? (def.get('name') ?? '').replace(/['"]/g, ''));
          events.push({
            kind: 'add-column',
            table,
            column: name,
            type: def.get('type') ?? '',
            notNull: def.get('allowNull') === 'false' || def.get('isNullable') === 'false',
            hasDefault:
              def.has('defaultValue') || def.has('default') || /autoIncrement|isGenerated/.test(definition.getText(sf)),
            line,
          });
          if (def.has('references'))
            events.push({
              kind: 'foreign-key',
              table,
              column: name,
              line,
              references: referencedTable(def.get('references') ?? ''),
            });
        }
      } else if (method === 'changeColumn' && first !== null && second !== undefined) {
        const definition = node.arguments[node.arguments.length - 1];
        const def =
          definition !== undefined && ts.isObjectLiteralExpression(definition)
            ? props(definition, sf)
            : new Map<string, string>();
        const column = str(second) ?? (ts.isNewExpression(second) ? '' : second.getText(sf));
        events.push({
          kind: 'alter-type',
          table: unquote(first),
          column: unquote(column),
          type: def.get('type') ?? definition?.getText(sf) ?? '',
          line,
        });
      } else if ((method === 'addIndex' || method === 'createIndex') && first !== null && second !== undefined) {
        const columns = ts.isNewExpression(second)
          ? strings(objectProp(second.arguments?.[0], 'columnNames'))
          : strings(second);
        if (columns[0] !== undefined)
          events.push({ kind: 'index', table: unquote(first), column: unquote(columns[0]), line });
      } else if (
        method === 'createForeignKey' &&
        first !== null &&
        second !== undefined &&
        ts.isNewExpression(second)
      ) {
        const columns = strings(objectProp(second.arguments?.[0], 'columnNames'));
        const references = str(objectProp(second.arguments?.[0], 'referencedTableName')) ?? '';
        if (columns[0] !== undefined)
          events.push({
            kind: 'foreign-key',
            table: unquote(first),
            column: unquote(columns[0]),
            line,
            references: unquote(references),
          });
      } else if (
        method === 'bulkDelete' &&
        first !== null &&
        (second === undefined ||
          second.kind === ts.SyntaxKind.NullKeyword ||
          (ts.isObjectLiteralExpression(second) && second.properties.length === 0))
      ) {
        events.push({ kind: 'delete-all', table: unquote(first), line });
      } else if (
        method === 'query' &&
        node.arguments[0] !== undefined &&
        (ts.isStringLiteralLike(node.arguments[0]) || ts.isTemplateExpression(node.arguments[0]))
      ) {
        events.push(...sqlEvents(node.arguments[0].getText(sf).slice(1, -1), line - 1));
      } else if (
        (method === 'createTable' || method === 'createTableIfNotExists') &&
        first !== null &&
        node.arguments[1] !== undefined
      ) {
        events.push({ kind: 'create-table', table: unquote(first), line, columns: new Map() });
        tableBuilder(unquote(first), true, node.arguments[1]);
      } else if ((method === 'alterTable' || method === 'table') && first !== null && node.arguments[1] !== undefined) {
        tableBuilder(unquote(first), false, node.arguments[1]);
      } else if (method === 'truncate') {
        const target = chainOf(node).root;
        const table = ts.isCallExpression(target) ? str(target.arguments[0]) : null;
        events.push({ kind: 'truncate', table: table ?? '?', line });
      } else if (
        method === 'raw' &&
        node.arguments[0] !== undefined &&
        (ts.isStringLiteralLike(node.arguments[0]) || ts.isTemplateExpression(node.arguments[0]))
      ) {
        events.push(...sqlEvents(node.arguments[0].getText(sf).slice(1, -1), line - 1));
      } else if (method === 'execute' || method === 'executeTakeFirst') {
        kyselyChain(node);
      }
    }
    if (ts.isTaggedTemplateExpression(node) && /^sql$/.test(node.tag.getText(sf))) {
      events.push(...sqlEvents(node.template.getText(sf).slice(1, -1), lineOf(node) - 1));
    }
    ts.forEachChild(node, visit);
  };

  // db.schema.alterTable('t').addColumn('c', 'text', (col) => col.notNull()).execute()
  const kyselyChain = (call: ts.CallExpression): void => {
    const { steps } = chainOf(call);
    // dropTable is read by the generic visitor; here only builders whose meaning is in the chain.
    const start = steps.findIndex((s) => ['createTable', 'alterTable', 'createIndex'].includes(s.name));
    const head = steps[start];
    if (head === undefined) return;
    const table = unquote(str(head.args[0]) ?? '?');
    const line = lineOf(head.node);
    if (head.name === 'createIndex') {
      const on = steps.find((s) => s.name === 'on');
      const columns = steps
        .filter((s) => s.name === 'column' || s.name === 'columns')
        .flatMap((s) => s.args.flatMap(strings));
      if (on !== undefined && columns[0] !== undefined)
        events.push({ kind: 'index', table: unquote(str(on.args[0]) ?? ''), column: unquote(columns[0]), line });
      return;
    }
    if (head.name === 'createTable') events.push({ kind: 'create-table', table, line, columns: new Map() });
    for (const step of steps.slice(start + 1)) {
      const column = unquote(str(step.args[0]) ?? '');
      const stepLine = lineOf(step.node);
      const builder = step.args[2]?.getText(sf) ?? '';
      if (step.name === 'addColumn') {
        if (head.name === 'alterTable') {
          events.push({
            kind: 'add-column',
            table,
            column,
            type: str(step.args[1]) ?? '',
            notNull: /\.notNull\(\)/.test(builder),
            hasDefault: /\.defaultTo\(|autoIncrement|generated/.test(builder),
            line: stepLine,
          });
        }
        const ref = /\.references\(\s*['"]([^'"]+)['"]/.exec(builder);
        if (ref !== null)
          events.push({ kind: 'foreign-key', table, column, line: stepLine, references: unquote(ref[1] ?? '') });
        if (/\.(primaryKey|unique)\(\)/.test(builder)) events.push({ kind: 'index', table, column, line: stepLine });
      } else if (step.name === 'dropColumn') {
        events.push({ kind: 'drop-column', table, column, line: stepLine });
      } else if (step.name === 'alterColumn' && /setDataType/.test(builder + (step.args[1]?.getText(sf) ?? ''))) {
        events.push({ kind: 'alter-type', table, column, type: step.args[1]?.getText(sf) ?? '', line: stepLine });
      } else if (step.name === 'addForeignKeyConstraint') {
        const columns = strings(step.args[1]);
        if (columns[0] !== undefined)
          events.push({
            kind: 'foreign-key',
            table,
            column: unquote(columns[0]),
            line: stepLine,
            references: unquote(str(step.args[2]) ?? ''),
          });
      } else if (step.name === 'addPrimaryKeyConstraint' || step.name === 'addUniqueConstraint') {
        const columns = strings(step.args[1]);
        if (columns[0] !== undefined)
          events.push({ kind: 'index', table, column: unquote(columns[0]), line: stepLine });
      }
    }
  };

  visit(upNode(sf));
  return { events, hasDown: exportedDown(sf) };
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

function isDownFile(file: string): boolean {
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

/** `specialized/database-reviewer`: reviews SQL and knex/kysely migrations. */
export function databaseReviewerCritic(options: { readonly timeoutMs?: number } = {}): CriticDefinition {
  return defineCritic({
    id: 'specialized/database-reviewer',
    evidence: 'pattern',
    description:
      'Migration review (SQL, knex, kysely): destructive changes without a down migration, NOT NULL columns without defaults on existing tables, foreign keys without an index.',
    triggers: ['**/migrations/**', '**/schema*', '**/*.sql'],
    timeoutMs: options.timeoutMs ?? 120_000,
    covers: isMigrationFile,
    async run(context: CriticContext): Promise<readonly FindingDraft[]> {
      const reader = context.reader;
      // Every migration of the repository: a change is judged against the tables earlier ones made.
      const files = [...new Set([...(await context.repoFiles()), ...context.files])].filter(isMigrationFile).sort();
      const fileSet = new Set(files);
      const facts: MigrationFacts[] = [];
      for (const file of files) {
        context.signal.throwIfAborted();
        if (isDownFile(file)) {
          // A down migration is reviewed as the way back of its up migration (read with it below).
          reader.read(file);
          continue;
        }
        const text = reader.read(file);
        if (text === null) continue;
        const paired = pairedDownFile(file);
        facts.push(
          migrationFacts(
            file,
            text,
            paired !== null && fileSet.has(paired) && (reader.read(paired) ?? '').trim() !== '',
          ),
        );
      }
      return reviewMigrations(facts, new Set(context.files)).map((p) =>
        draftFinding({
          severity: p.severity,
          score: p.score,
          category: p.category,
          finding_type: p.type,
          file: p.file,
          line_range: { start: p.line, end: p.line },
          title: p.title,
          current_behaviour: p.current,
          expected_behaviour: p.expected,
          observable_test_conditions: p.observable,
          forbidden_in_test: [
            'testing against an empty database only (the failure needs existing rows)',
            'mocking the database instead of running the migration',
          ],
        }),
      );
    },
  });
}
