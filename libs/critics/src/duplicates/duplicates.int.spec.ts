import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { duplicateCodeCritic, runCritic } from '../index.js';
import { fixtureRepo } from '../__fixtures__/repo.js';

const ORIGINAL = `export function invoiceTotal(items: { quantity: number; unitPrice: number; sku: string }[], taxRate: number): number {
  let subtotal = 0;
  for (const item of items) {
    if (item.quantity <= 0) throw new Error(\`bad quantity for \${item.sku}\`);
    subtotal += item.quantity * item.unitPrice;
  }
  const discount = subtotal > 1000 ? subtotal * 0.05 : 0;
  const taxed = (subtotal - discount) * (1 + taxRate);
  return Math.round(taxed * 100) / 100;
}
`;
// The same logic with every identifier renamed: a type-2 clone.
const RENAMED = `export function quoteSum(lines: { quantity: number; unitPrice: number; sku: string }[], vat: number): number {
  let sum = 0;
  for (const line of lines) {
    if (line.quantity <= 0) throw new Error(\`invalid quantity \${line.sku}\`);
    sum += line.quantity * line.unitPrice;
  }
  const rebate = sum > 500 ? sum * 0.1 : 0;
  const gross = (sum - rebate) * (1 + vat);
  return Math.round(gross * 100) / 100;
}
`;
const DIFFERENT = `export function quoteSum(lines: { quantity: number; unitPrice: number }[], vat: number): number {
  return lines.reduce((sum, line) => sum + line.quantity * line.unitPrice, 0) * (1 + vat);
}
`;

// Two tables of the same shape filled with other data (rule texts): no logic is repeated.
const RULES_A = `export const SQL_RULE = {
  type: 'sast/sql-injection',
  title: 'SQL injection',
  severity: 'critical',
  score: 10,
  expected: 'User input is passed as a bound parameter, never as SQL text.',
  observable: (input: { text: string }) => [\`with \${input.text} = "' OR 1=1" only matching rows come back\`, 'the SQL text never changes'],
  forbidden: ['mocking the database driver', 'asserting on the formatting of the SQL string'],
};
`;
const RULES_B = `export const XSS_RULE = {
  type: 'sast/xss',
  title: 'Cross-site scripting',
  severity: 'medium',
  score: 9,
  expected: 'User input is HTML-escaped before it reaches a page.',
  observable: (value: { text: string }) => [\`with \${value.text} = "<script>" no script element is produced\`, 'plain text still renders'],
  forbidden: ['stubbing the template engine', 'asserting on escaping helper calls only'],
};
`;

async function findings(dir: string, files: readonly string[], cacheDir?: string) {
  const result = await runCritic(duplicateCodeCritic(), {
    repoDir: dir,
    commit: '0'.repeat(40),
    files,
    phase: 'final_sweep',
    ...(cacheDir === undefined ? {} : { cacheDir }),
  });
  if (result.status !== 'reported') throw new Error(result.message);
  return result;
}

describe('quality/duplicate-code-detector', () => {
  it('finds a renamed copy within the change and names both locations', async () => {
    const repo = fixtureRepo({ 'src/invoice.ts': ORIGINAL, 'src/quote.ts': RENAMED });
    try {
      const { findings: found } = await findings(repo.dir, ['src/invoice.ts', 'src/quote.ts']);
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({
        finding_type: 'duplicate/within-change',
        severity: 'medium',
        category: 'maintainability',
        file: 'src/quote.ts',
      });
      expect(found[0]?.line_range.start).toBeLessThanOrEqual(2);
      expect(found[0]?.line_range.end).toBeGreaterThanOrEqual(9);
      expect(found[0]?.related_locations[0]).toMatchObject({ file: 'src/invoice.ts', line_range: { start: 1 } });
    } finally {
      repo.remove();
    }
  });

  it('tells a copy of existing code (against the repository) from a copy inside the change', async () => {
    const repo = fixtureRepo({ 'src/invoice.ts': ORIGINAL, 'src/quote.ts': RENAMED });
    try {
      const { findings: found } = await findings(repo.dir, ['src/quote.ts']);
      expect(found.map((f) => [f.finding_type, f.file])).toEqual([['duplicate/against-repo', 'src/quote.ts']]);
      const untouched = await findings(repo.dir, ['README.md']);
      expect(untouched.findings).toEqual([]);
    } finally {
      repo.remove();
    }
  });

  it('stays quiet when the second function is different code', async () => {
    const repo = fixtureRepo({ 'src/invoice.ts': ORIGINAL, 'src/quote.ts': DIFFERENT });
    try {
      expect((await findings(repo.dir, ['src/invoice.ts', 'src/quote.ts'])).findings).toEqual([]);
    } finally {
      repo.remove();
    }
  });

  it('stays quiet on two tables of the same shape filled with other data', async () => {
    const repo = fixtureRepo({
      'src/sql-rule.ts': RULES_A,
      'src/xss-rule.ts': RULES_B,
      'src/invoice.ts': ORIGINAL,
      'src/quote.ts': RENAMED,
    });
    try {
      const found = (await findings(repo.dir, ['src/sql-rule.ts', 'src/xss-rule.ts', 'src/invoice.ts', 'src/quote.ts']))
        .findings;
      expect(found.map((f) => f.file)).toEqual(['src/quote.ts']);
    } finally {
      repo.remove();
    }
  });

  it('re-tokenises only the changed file on the next review', async () => {
    const repo = fixtureRepo({ 'src/invoice.ts': ORIGINAL, 'src/quote.ts': RENAMED, 'src/other.ts': DIFFERENT });
    const cacheDir = mkdtempSync(join(tmpdir(), 'rloop-dup-cache-'));
    try {
      const files = ['src/invoice.ts', 'src/other.ts', 'src/quote.ts'];
      expect((await findings(repo.dir, files, cacheDir)).notes.join(' ')).toMatch(/3 tokenised, 0 reused/);
      repo.write('src/other.ts', `${DIFFERENT}\nexport const more = 1;\n`);
      const second = await findings(repo.dir, files, cacheDir);
      expect(second.notes.join(' ')).toMatch(/1 tokenised, 2 reused/);
      expect(second.findings).toHaveLength(1);
    } finally {
      repo.remove();
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  it('does not count doc comments and type declarations: JSDoc-heavy overload signatures are one low finding per family', async () => {
    const doc = (name: string) =>
      `  /**\n   * Calls the \`${name}\` function for the column given as the argument.\n   *\n   * For additional functionality such as distinct, filtering and window functions,\n   * refer to the aggregate builder. An instance of it is returned.\n   *\n   * The type of the selected expression is the referenced column's type.\n   */\n`;
    const signature = (name: string) =>
      `  ${name}<O extends number | string | Date | bigint | null = never, RE extends Reference<DB, TB> = Reference<DB, TB>>(\n    expr: RE,\n  ): AggregateBuilder<DB, TB, IsNever<O> extends true ? ExtractType<DB, TB, RE, number | string | Date | bigint> : O>\n`;
    const module = `export interface FunctionModule<DB, TB> {\n${['max', 'min', 'sum', 'avg'].map((n) => doc(n) + signature(n)).join('\n')}}\n`;
    const repo = fixtureRepo({ 'src/function-module.ts': module });
    try {
      const found = (await findings(repo.dir, ['src/function-module.ts'])).findings;
      expect(found.map((f) => [f.finding_type, f.severity])).toEqual([['duplicate/repeated-shape', 'low']]);
      expect(found[0]?.title).toBe('4 signatures share one shape (max, min, sum, avg)');
      expect(found[0]?.related_locations).toHaveLength(3);
    } finally {
      repo.remove();
    }
  });

  it('does not report builder classes whose methods repeat one line each under other class names, and still reports a renamed body', async () => {
    const builder = (cls: string, node: string) =>
      `export class ${cls} {\n  constructor(private readonly props: { node: ${node} }) {}\n` +
      ['where', 'orderBy', 'limit', 'offset', 'returning', 'groupBy']
        .map(
          (m) =>
            `  ${m}(...args: unknown[]): ${cls} {\n    return new ${cls}({ ...this.props, node: ${node}.cloneWith${m[0]?.toUpperCase()}${m.slice(1)}(this.props.node, parse(args)) });\n  }\n`,
        )
        .join('') +
      '}\n';
    const repo = fixtureRepo({
      'src/select.ts': builder('SelectBuilder', 'SelectNode'),
      'src/update.ts': builder('UpdateBuilder', 'UpdateNode'),
      'src/invoice.ts': ORIGINAL,
      'src/quote.ts': RENAMED,
    });
    try {
      const found = (await findings(repo.dir, ['src/select.ts', 'src/update.ts', 'src/invoice.ts', 'src/quote.ts']))
        .findings;
      expect(found.map((f) => [f.finding_type, f.file])).toEqual([['duplicate/within-change', 'src/quote.ts']]);
    } finally {
      repo.remove();
    }
  });

  it('reports DTO classes with the same fields once, at low severity', async () => {
    const dto = (name: string) =>
      `export class ${name} {\n${['name', 'email', 'street', 'city', 'zip', 'country']
        .map((f) => `  @IsString()\n  @MaxLength(200)\n  ${f}!: string;\n`)
        .join('')}}\n`;
    const repo = fixtureRepo({
      'src/create.dto.ts': dto('CreateCustomerDto'),
      'src/update.dto.ts': dto('UpdateCustomerDto'),
      'src/import.dto.ts': dto('ImportCustomerDto'),
    });
    try {
      const found = (await findings(repo.dir, ['src/create.dto.ts', 'src/update.dto.ts', 'src/import.dto.ts']))
        .findings;
      expect(found.map((f) => [f.finding_type, f.severity, f.file, f.related_locations.length])).toEqual([
        ['duplicate/repeated-shape', 'low', 'src/create.dto.ts', 2],
      ]);
    } finally {
      repo.remove();
    }
  });

  it('counts lines of code, not comment lines: four dense lines copied between long comments are no clone', async () => {
    const dense = (name: string) =>
      `export function ${name}(rows: { a: number; b: number; c: string }[]) {\n` +
      '  // Step one: keep rows whose totals are positive; the ledger can hold corrections.\n  // They are summed with the others only after the audit.\n  // See the accounting notes for the reasons.\n' +
      '  const kept = rows.filter((r) => r.a + r.b > 0 && r.c !== "void" && r.c.length < 40 && !r.c.startsWith("x"));\n' +
      '  // Step two: total them per currency code, in cents.\n  // Rounding happens at the very end.\n  // The caller formats.\n' +
      '  return kept.reduce((acc, r) => ({ ...acc, [r.c]: (acc[r.c] ?? 0) + Math.round((r.a + r.b) * 100) }), {} as Record<string, number>);\n}\n';
    const repo = fixtureRepo({ 'src/a.ts': dense('ledgerTotals'), 'src/b.ts': dense('ledgerTotals') });
    try {
      expect((await findings(repo.dir, ['src/a.ts', 'src/b.ts'])).findings).toEqual([]);
    } finally {
      repo.remove();
    }
  });
});
