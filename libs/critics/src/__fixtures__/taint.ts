import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { type CheckKind, type Origin, ORIGINS, SINK_KINDS, VALIDATION_KINDS } from '../sast/model.js';
import { type TaintFlow, type TaintReader, runTaintAnalysis } from '../sast/engine.js';

/** Text in memory as the engine's reader (unit specs: no disk, no cache). */
export function memoryReader(files: Readonly<Record<string, string>>): TaintReader {
  return {
    read: (file) => files[file] ?? null,
    hash: (file) => (files[file] === undefined ? null : createHash('sha256').update(files[file]).digest('hex')),
    saveIndex: () => undefined,
  };
}

export interface TaintOptions {
  readonly kinds?: readonly CheckKind[];
  readonly origins?: readonly Origin[];
  readonly libraryMode?: boolean;
}

/** Runs the real engine (both passes) over files in memory; every kind and origin unless narrowed. */
export async function taintFlows(
  files: Readonly<Record<string, string>>,
  options: TaintOptions = {},
): Promise<readonly TaintFlow[]> {
  const result = await runTaintAnalysis({
    reader: memoryReader(files),
    files: Object.keys(files),
    config: {
      kinds: new Set(options.kinds ?? [...SINK_KINDS, ...VALIDATION_KINDS]),
      origins: new Set(options.origins ?? ORIGINS.filter((o) => o !== 'caller' || options.libraryMode === true)),
      libraryMode: options.libraryMode === true,
    },
    cacheNamespace: 'spec',
  });
  return result.flows;
}

/** Lines (file:line) carrying a `// SINK` marker, with the kind after it: `// SINK ssrf`. */
export function markedSinks(files: Readonly<Record<string, string>>): string[] {
  const out: string[] = [];
  for (const [file, text] of Object.entries(files)) {
    text.split('\n').forEach((line, index) => {
      const match = /\/\/ SINK (\S+)/.exec(line);
      if (match !== null) out.push(`${match[1]} ${file}:${index + 1}`);
    });
  }
  return out.sort();
}

/** One example of a model: code that must be flagged exactly at its `// SINK kind` lines, and its safe twin. */
export interface ModelCase {
  readonly name: string;
  readonly vulnerable: Readonly<Record<string, string>>;
  /** The same code made safe: no flow of the kinds the vulnerable variant marks. */
  readonly safe?: Readonly<Record<string, string>>;
  readonly options?: TaintOptions;
}

/**
 * A model's unit spec: each case's vulnerable code has flows exactly at its marked lines (kind and
 * place), and its safe twin has none of those kinds.
 */
export function describeModelCases(title: string, cases: readonly ModelCase[]): void {
  describe(title, () => {
    for (const example of cases) {
      const expected = markedSinks(example.vulnerable);
      it(`${expected.length === 0 ? 'reports nothing for' : 'finds'} ${example.name}`, async () => {
        const flows = await taintFlows(example.vulnerable, example.options);
        // Without markers the variant must stay quiet altogether; with them, the marked kinds must match exactly.
        const kinds = new Set(expected.map((e) => e.split(' ')[0]));
        const relevant = expected.length === 0 ? flows : flows.filter((f) => kinds.has(f.kind));
        expect(relevant.map((f) => `${f.kind} ${f.sink.file}:${f.sink.line}`).sort()).toEqual(expected);
      });
      const safe = example.safe;
      if (safe !== undefined) {
        it(`leaves the safe twin of ${example.name} alone`, async () => {
          const kinds = new Set(markedSinks(example.vulnerable).map((e) => e.split(' ')[0]));
          const flows = await taintFlows(safe, example.options);
          expect(
            flows
              .filter((f) => kinds.has(f.kind))
              .map((f) => `${f.kind} ${f.sink.file}:${f.sink.line} ← ${f.source.text}`),
          ).toEqual([]);
        });
      }
    }
  });
}
