import { describe, expect, it } from '@jest/globals';
import { builtInCritics, runCritic } from '../index.js';
import { fixtureRepo, lineOf } from '../__fixtures__/repo.js';

const branchy = (name: string, n: number): string =>
  `export function ${name}(code: number): string { // ${name}-start\n${Array.from({ length: n }, (_, i) => `  if (code === ${i}) return 'c${i}';`).join('\n')}\n  return 'other';\n} // ${name}-end\n`;

describe('quality/complexity', () => {
  it('reports the functions of the reviewed files over the thresholds (medium over the upper one, low over the lower one) and stays quiet on simple code', async () => {
    const source = `${branchy('route', 18)}\n${branchy('status', 12)}\nexport const table: Record<number, string> = { 0: 'c0', 1: 'c1' };\nexport function lookup(code: number): string {\n  return table[code] ?? 'other';\n}\n`;
    const repo = fixtureRepo({
      'src/codes.ts': source,
      'src/other.ts': branchy('untouched', 30),
      'README.md': '# x\n',
    });
    try {
      const [critic] = builtInCritics({ only: ['quality/complexity'] });
      if (critic === undefined) throw new Error('no complexity critic');
      const result = await runCritic(critic, {
        repoDir: repo.dir,
        commit: '0'.repeat(40),
        files: ['src/codes.ts', 'README.md'],
        phase: 'final_sweep',
      });
      expect(
        result.status === 'reported'
          ? result.findings.map((f) => [f.finding_type, f.severity, f.line_range.start, f.line_range.end])
          : result,
      ).toEqual([
        ['complexity/function', 'medium', lineOf(source, 'route-start'), lineOf(source, 'route-end')],
        ['complexity/function', 'low', lineOf(source, 'status-start'), lineOf(source, 'status-end')],
      ]);
      expect(result.coverage).toMatchObject({ considered: 2, analysed: 1, unsupported: 1 });
      expect(result.notes.join('\n')).toMatch(/3 function\(s\) measured/);
    } finally {
      repo.remove();
    }
  });
});
