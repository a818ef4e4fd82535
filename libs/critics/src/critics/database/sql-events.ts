/**
 * SQL migrations read into events: statement splitting (comments, quotes and dollar-quoting
 * aware), the dialect-neutral `MigrationEvent`s a statement stands for, and the up/down split of
 * an SQL migration file. Kept apart from the module reader and the rules because it is plain text
 * processing (no TypeScript AST) that both of them reuse: modules hand their raw SQL to `sqlEvents`.
 */

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

export function unquote(name: string): string {
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
export function sqlUpPart(text: string): { up: string; hasDown: boolean } {
  const marker = DOWN_MARKER.exec(text);
  if (marker === null) return { up: text, hasDown: false };
  const upMarker = /^\s*--\s*(migrate:up|\+migrate\s+up|\+goose\s+up)/im.exec(text);
  const downText = text.slice(marker.index + marker[0].length);
  const up =
    upMarker !== null && upMarker.index > marker.index ? text.slice(upMarker.index) : text.slice(0, marker.index);
  return { up, hasDown: statements(downText).length > 0 };
}
