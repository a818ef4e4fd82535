import { describe, expect, it } from '@jest/globals';
import { Linter } from 'eslint';
import { measureFunctions } from './complexity-metrics.js';
import { complexityDraft } from './complexity.js';

const CORPUS = `
function plain(a) { return a + 1; }
function branches(a, b) {
  if (a) { return 1; } else if (b) { return 2; } else { return 3; }
}
function logic(a, b, c) { return ((a && b) || c) ?? null; }
function assigns(o) { o.x ||= 1; o.y &&= 2; o.z ??= 3; }
function defaults(a = 1, { b = 2, c } = {}) { return a + b + c; }
function chains(a) { return a?.b?.c?.(); }
function loops(list) {
  for (let i = 0; i < list.length; i++) {}
  for (const k in list) {}
  for (const v of list) {}
  while (list.length > 9) list.pop();
  do { list.pop(); } while (list.length > 5);
}
function tries(f) { try { return f(); } catch (e) { return e ? 1 : 2; } }
function switches(x) {
  switch (x) { case 1: return 'a'; case 2: case 3: return 'b'; default: return 'c'; }
}
const arrow = (a) => a > 1 ? a : -a;
class Shape { area(w, h) { if (w < 0 || h < 0) throw new Error('x'); return w * h; } }
function outer(list) { return list.map((x) => x && x.ok); }
`;

describe('complexity measures', () => {
  it("cyclomatic complexity is what ESLint's complexity rule counts, function by function", () => {
    const linter = new Linter({ configType: 'flat' });
    const messages = linter.verify(CORPUS, [
      { languageOptions: { ecmaVersion: 'latest', sourceType: 'module' }, rules: { complexity: ['error', 0] } },
    ]);
    const eslint = messages
      .map((m) => [m.line, Number(/complexity of (\d+)/.exec(m.message)?.[1])])
      .sort((a, b) => Number(a[0]) - Number(b[0]));
    const ours = measureFunctions('corpus.js', CORPUS).map((f) => [f.startLine, f.cyclomatic]);
    expect(ours).toEqual(eslint);
    expect(ours.length).toBe(13);
  });

  it("cognitive complexity follows SonarSource's definition: the white paper's examples", () => {
    const text = `
function sumOfPrimes(max) {
  let total = 0;
  OUT: for (let i = 1; i <= max; ++i) {
    for (let j = 2; j < i; ++j) {
      if (i % j === 0) {
        continue OUT;
      }
    }
    total += i;
  }
  return total;
}
function getWords(number) {
  switch (number) {
    case 1: return 'one';
    case 2: return 'a couple';
    case 3: return 'a few';
    default: return 'lots';
  }
}
function conditions(a, b, c, d, e) {
  if (a && b && c || d) {
    return 1;
  } else if (e) {
    return a ? 2 : 3;
  } else {
    return 4;
  }
}
function factorial(n) { return n <= 1 ? 1 : n * factorial(n - 1); }
`;
    expect(measureFunctions('x.js', text).map((f) => [f.name, f.cognitive])).toEqual([
      ['sumOfPrimes', 7],
      ['getWords', 1],
      // if +1, && sequence +1, || sequence +1, else if +1, ?: nested once +2, else +1
      ['conditions', 7],
      // ?: +1, recursion +1
      ['factorial', 2],
    ]);
  });

  it('names functions as people know them and gives their whole line span', () => {
    const text =
      'export const handler = async (event: { a?: number }) => {\n  return event.a ?? 0;\n};\nclass Repo {\n  constructor() {}\n  find(id: string) {\n    return id;\n  }\n}\n';
    expect(measureFunctions('x.ts', text).map((f) => [f.name, f.startLine, f.endLine])).toEqual([
      ['handler', 1, 3],
      ['Repo.constructor', 5, 5],
      ['Repo.find', 6, 8],
    ]);
  });

  it('reports low over the lower thresholds, medium over the upper ones, nothing at or under', () => {
    const thresholds = { cyclomatic: { low: 10, medium: 15 }, cognitive: { low: 10, medium: 15 } };
    const fn = (cyclomatic: number, cognitive: number) =>
      complexityDraft('a.ts', { name: 'f', startLine: 3, endLine: 40, cyclomatic, cognitive }, thresholds);
    expect(fn(10, 10)).toBeNull();
    expect(fn(11, 4)).toMatchObject({
      severity: 'low',
      finding_type: 'complexity/function',
      line_range: { start: 3, end: 40 },
      category: 'maintainability',
    });
    expect(fn(8, 16)).toMatchObject({ severity: 'medium' });
    expect(fn(16, 16)?.title).toBe(
      'f is too complex: cyclomatic complexity 16 (over 15), cognitive complexity 16 (over 15)',
    );
  });
});

describe('quality/complexity settings', () => {
  it('takes its thresholds from the catalogue entry, defaults for what it leaves out, and names a bad value', async () => {
    const { complexityThresholds } = await import('./complexity.js');
    expect(complexityThresholds({ cognitive: { low: 5, medium: 8 } })).toEqual({
      cyclomatic: { low: 10, medium: 15 },
      cognitive: { low: 5, medium: 8 },
    });
    expect(() => complexityThresholds({ cyclomatic: { low: 9, medium: 3 } })).toThrow(
      /settings of quality\/complexity .*medium must be at least low/s,
    );
    expect(() => complexityThresholds({ cyclomatc: { low: 9, medium: 12 } })).toThrow(/cyclomatc/);
  });
});
