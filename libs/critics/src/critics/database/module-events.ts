/**
 * JS/TS migration modules (knex, kysely, Sequelize, TypeORM) read into the same `MigrationEvent`s
 * as SQL: walks the TypeScript AST of the module's `up` (call chains such as
 * `knex.schema.alterTable(…)` or `db.schema.alterTable(…).addColumn(…).execute()`) and tells
 * whether it exports a `down` that does something. Separate because it is the only part that
 * needs the TypeScript compiler API, and its chain-reading helpers concern nothing else.
 */
import ts from 'typescript';
import { type MigrationEvent, sqlEvents, unquote } from './sql-events.js';

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
