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
  const result = await runCritic(duplicateCodeCritic(), { repoDir: dir, commit: '0'.repeat(40), files, phase: 'final_sweep', ...(cacheDir === undefined ? {} : { cacheDir }) });
  if (result.status !== 'reported') throw new Error(result.message);
  return result;
}

describe('quality/duplicate-code-detector', () => {
  it('finds a renamed copy within the change and names both locations', async () => {
    const repo = fixtureRepo({ 'src/invoice.ts': ORIGINAL, 'src/quote.ts': RENAMED });
    try {
      const { findings: found } = await findings(repo.dir, ['src/invoice.ts', 'src/quote.ts']);
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({ finding_type: 'duplicate/within-change', severity: 'medium', category: 'maintainability', file: 'src/quote.ts' });
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
    const repo = fixtureRepo({ 'src/sql-rule.ts': RULES_A, 'src/xss-rule.ts': RULES_B, 'src/invoice.ts': ORIGINAL, 'src/quote.ts': RENAMED });
    try {
      const found = (await findings(repo.dir, ['src/sql-rule.ts', 'src/xss-rule.ts', 'src/invoice.ts', 'src/quote.ts'])).findings;
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
});
