/**
 * Pure reading of test sources: which paths are tests, whether a test is skipped or focused,
 * how many tests and assertions a file has, and which snippets a finding forbids. Heuristic by
 * nature (text, not an AST), so it errs on the side of refusing: the cost of a refused honest
 * change is one more round; the cost of an accepted weakened test is a finding that is not fixed.
 */

/** Default test-file rule: a `test/`, `tests/`, `__tests__/` or `spec/` directory, or a *.test.* / *.spec.* name. */
export function isTestPath(path: string): boolean {
  return (
    /(^|\/)(__tests__|tests?|spec)\//.test(path) ||
    /\.(test|spec)\.[cm]?[jt]sx?$/.test(path) ||
    /(^|\/)test_[^/]+\.py$|_test\.(py|go)$/.test(path)
  );
}

const SKIP_MARKERS: readonly RegExp[] = [
  /\b(?:it|test|describe|suite|context)\s*\.\s*(?:skip|todo|only|skipIf|runIf)\b/g,
  /\b(?:xit|xtest|xdescribe|fit|fdescribe)\s*\(/g,
  /\{\s*(?:skip|todo|only)\s*:\s*(?:true|['"`])/g,
  /\bt\s*\.\s*(?:skip|todo)\s*\(/g,
  /@pytest\.mark\.(?:skip|xfail)|\bpytest\.skip\s*\(|\bt\.Skip(?:Now|f)?\s*\(/g,
];

const ASSERTIONS =
  /\bexpect\s*\(|\bassert(?:\s*\.\s*[A-Za-z]+)?\s*\(|\.should\b|\bt\s*\.\s*(?:equal|ok|deepEqual|strictEqual|is|same|throws|rejects|notEqual|match|assert|true|false|Error|Errorf|Fatal|Fatalf)\s*\(/g;
const TESTS =
  /\b(?:it|test)\s*(?:\.\s*(?:each|concurrent|failing)\s*(?:\([^)]*\)|`[^`]*`)\s*)?\(|^\s*def\s+test_|^func\s+Test[A-Z0-9_]/gm;

function count(text: string, pattern: RegExp): number {
  return [
    ...text.matchAll(new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`)),
  ].length;
}

/** Removes comments so commented-out assertions do not count (a commented assertion is a removed one). */
export function stripComments(source: string): string {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:\\])\/\/.*$/gm, '$1')
    .replace(/^\s*#.*$/gm, '');
}

export interface TestSourceStats {
  readonly tests: number;
  readonly assertions: number;
  readonly skipMarkers: readonly string[];
}

export function testSourceStats(source: string): TestSourceStats {
  const code = stripComments(source);
  const skipMarkers = SKIP_MARKERS.flatMap((pattern) =>
    [...code.matchAll(pattern)].map((m) => m[0].replace(/\s+/g, '')),
  );
  return { tests: count(code, TESTS), assertions: count(code, ASSERTIONS), skipMarkers };
}

export interface TestWeakening {
  readonly removedTests: number;
  readonly removedAssertions: number;
  readonly addedSkipMarkers: readonly string[];
}

/** What got weaker between two versions of a test file. */
export function compareTestSources(before: string, after: string): TestWeakening {
  const a = testSourceStats(before);
  const b = testSourceStats(after);
  const remaining = [...a.skipMarkers];
  const added: string[] = [];
  for (const marker of b.skipMarkers) {
    const at = remaining.indexOf(marker);
    if (at >= 0) remaining.splice(at, 1);
    else added.push(marker);
  }
  return {
    removedTests: Math.max(0, a.tests - b.tests),
    removedAssertions: Math.max(0, a.assertions - b.assertions),
    addedSkipMarkers: added,
  };
}

/** Snippets a finding forbids in its tests: the text inside backticks of forbidden_in_test entries. */
export function forbiddenSnippets(forbidden: readonly string[]): string[] {
  const snippets = new Set<string>();
  for (const entry of forbidden) {
    for (const match of entry.matchAll(/`([^`]{2,200})`/g)) {
      const snippet = match[1]?.trim();
      if (snippet !== undefined && snippet !== '') snippets.add(snippet);
    }
  }
  return [...snippets];
}
