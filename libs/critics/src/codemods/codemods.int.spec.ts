import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import ts from 'typescript';
import { CheckoutBoundary, runCodemods } from '../index.js';

// Each fixture directory holds a `before` file and the `after` the codemods must make of it; the
// cases a codemod must leave alone are in the same files, marked "Stays".
const FIXTURES = join(import.meta.dirname, '__fixtures__');

function fixture(name: string): { file: string; before: string; after: string } {
  const files = readdirSync(join(FIXTURES, name));
  const before = files.find((f) => f.startsWith('before.'));
  if (before === undefined) throw new Error(`${name} has no before file`);
  const file = `src/${name}${before.slice('before'.length)}`;
  return {
    file,
    before: readFileSync(join(FIXTURES, name, before), 'utf8'),
    after: readFileSync(join(FIXTURES, name, before.replace('before', 'after')), 'utf8'),
  };
}

describe('the codemods for the deprecations the critics report', () => {
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'rloop-codemods-'));
    await writeFile(join(root, 'package.json'), '{ "name": "codemods-fixtures", "private": true }\n');
  });

  afterAll(() => rm(root, { recursive: true, force: true }));

  async function run(name: string) {
    const { file, before, after } = fixture(name);
    await rm(join(root, 'src'), { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.mkdir(join(root, 'src'), { recursive: true }));
    await writeFile(join(root, file), before);
    const [result, ...others] = runCodemods(new CheckoutBoundary(root), [file]);
    expect(others).toEqual([]);
    if (result === undefined) throw new Error(`no result for ${file}`);
    return { result, after };
  }

  it.each([
    [
      'buffer-constructor',
      [
        'buffer-constructor',
        'buffer-constructor',
        'buffer-constructor',
        'buffer-constructor',
        'buffer-constructor',
        'buffer-constructor',
        'buffer-constructor',
      ],
      1,
    ],
    ['string-substr', ['string-substr', 'string-substr', 'string-substr', 'string-substr', 'string-substr'], 1],
    ['util-is', ['util-is', 'util-is', 'util-is', 'util-is', 'util-is', 'util-is', 'util-is', 'util-is'], 1],
    ['util-is-named', ['util-is', 'util-is'], 0],
    ['util-is-namespace', ['util-is'], 0],
    ['buffer-slice', ['buffer-slice', 'buffer-slice'], 0],
    ['url-parse-literal', ['url-parse-literal', 'url-parse-literal'], 2],
    ['no-rewrite', [], 5],
  ] as const)(
    'given the %s fixture, when the codemods run, then the file becomes its after fixture',
    async (name, codemods, skips) => {
      const { result, after } = await run(name);
      expect(result.after).toBe(after);
      expect(result.applied.map((a) => a.codemod)).toEqual(codemods);
      expect(result.skipped).toHaveLength(skips);
    },
  );

  // The proof beyond the text: before and after, run side by side in Node on the same inputs
  // (negative, NaN, empty, null, other realms' kinds of values), give the same results.
  const PROBES: Readonly<Record<string, readonly string[]>> = {
    'buffer-constructor': [
      'm.zeros',
      'm.text',
      'm.bytes',
      'm.copy',
      'm.shared',
      'm.hex',
      'm.fromUnknown(3)',
      "m.fromUnknown('ab')",
      'm.fromUnknown([1, 300])',
      "m.decode('aGk=')",
      'm.decode([104, 105])',
      'm.decode(5)',
    ],
    'string-substr': [
      "m.parts('hello world', 0, 3)",
      "m.parts('hi', 5, 2)",
      "m.parts('abcdef', -2, 1)",
      "m.parts('abc', 1, -1)",
      "m.parts('', 0, 0)",
      "m.parts('abcdef', 1, NaN)",
      "m.parts('abcdef', NaN, Infinity)",
    ],
    'util-is': [
      '[[1, 2], null]',
      "['s', 1]",
      "['s', null]",
      "['s', undefined]",
      '[new Date(0), 1]',
      '[/a/, 1]',
      "[new TypeError('x'), 1]",
      '[Object.create(Error.prototype), 1]',
      '[{ inner: null }, 1]',
      '[{ inner: 1 }, 1]',
      '[7, 1]',
      '[true, 1]',
    ].map((args) => `m.kind(...${args})`),
    'util-is-named': ['[]', 'null', '() => 1', "'f'", 'class {}'].map((value) => `m.callable(${value})`),
    'util-is-namespace': ['[]', '{ length: 0 }', "'abc'"].map((value) => `m.isList(${value})`),
    'buffer-slice': [
      "m.header(Buffer.from('abcdefgh'))",
      "m.tail(Buffer.from('abcdefgh'))",
      'm.copyOf(new Uint8Array([1, 2, 3]))',
      "((b) => { m.header(b)[0] = 0x5a; return b; })(Buffer.from('abcdefgh'))",
    ],
    'url-parse-literal': ['m.host', 'm.port', 'm.search', "m.hostOf('https://example.org/x')", "m.hostOf('/relative')"],
  };

  it.each(Object.keys(PROBES))(
    'given the %s fixture, when before and after run on the same inputs, then they give the same results',
    async (name) => {
      const { before, after } = fixture(name);
      const results = await Promise.all(
        [before, after].map(async (source, index) => {
          const js = ts.transpileModule(source, {
            compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
          }).outputText;
          const path = join(root, `probe-${name}-${index}.cjs`);
          await writeFile(path, js);
          const probe = `const m = require(${JSON.stringify(path)}); const show = (v) => Buffer.isBuffer(v) || v instanceof Uint8Array ? 'bytes:' + Buffer.from(v).toString('hex') : JSON.stringify(v); console.log(JSON.stringify(${JSON.stringify(PROBES[name])}.map((expr) => { try { return show(eval(expr)); } catch (e) { return 'throws:' + e.name; } })));`;
          // The before fixture calls deprecated APIs on purpose: Node's warnings about them are expected, not news.
          return execFileSync(process.execPath, ['--no-deprecation', '-e', probe], {
            encoding: 'utf8',
            env: { PATH: process.env['PATH'] ?? '' },
          });
        }),
      );
      expect(results[1]).toBe(results[0]);
      expect(JSON.parse(results[0] ?? '[]')).toHaveLength(PROBES[name]?.length ?? -1);
    },
  );

  it('given calls no rewrite keeps, when the codemods run, then each is listed with why', async () => {
    const { result } = await run('no-rewrite');
    expect(Object.fromEntries(result.skipped.map((s) => [s.name, s.note]))).toEqual({
      exists: expect.stringMatching(/^fs\.exists passes its callback a boolean/) as unknown,
      log: expect.stringMatching(/^util\.log prints a timestamp/) as unknown,
      createCipher: expect.stringMatching(/^crypto\.createCipher derives key and IV/) as unknown,
      escape: expect.stringMatching(/^escape encodes non-ASCII/) as unknown,
      unescape: expect.stringMatching(/^unescape decodes/) as unknown,
    });
  });

  it('given a computed substr or an unknown Buffer argument, when the codemods run, then the reason names what cannot be told', async () => {
    expect((await run('string-substr')).result.skipped[0]?.note).toMatch(
      /slice\(start, start \+ length\) differs for a negative start or length/,
    );
    expect((await run('buffer-constructor')).result.skipped[0]?.note).toMatch(
      /^new Buffer\(input\): its argument may be a number or not/,
    );
    expect((await run('url-parse-literal')).result.skipped.map((s) => s.note)).toEqual([
      'url.parse and new URL disagree on .search of "http://example.com/?" ("?" and "")',
      expect.stringMatching(/^url\.parse accepts relative and malformed URLs/),
    ]);
  });
});
