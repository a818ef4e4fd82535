import { describe, expect, it } from '@jest/globals';
import type { JournaledEvent, RecordedCoverage } from '@rloop/contracts';
import { RecordedCoverageStore, recordedCoverageFor } from './recorded-coverage.js';

const coverage = (file: string): RecordedCoverage => ({
  format: 'v8',
  files: [{ file, executable: 3, uncovered: [{ start: 2, end: 2 }] }],
  truncated: false,
});
const baseline = (commit: string, c?: RecordedCoverage) =>
  ({
    type: 'BaselineRecorded',
    data: { commit, ...(c === undefined ? {} : { coverage: c }) },
  }) as unknown as JournaledEvent;
const fix = (commit: string | null, c?: RecordedCoverage) =>
  ({ type: 'FixApplied', data: { commit, ...(c === undefined ? {} : { coverage: c }) } }) as unknown as JournaledEvent;

describe('the coverage a round reads', () => {
  it('given the baseline and fixes, when a round reviews a commit, then it gets what the test run of that commit recorded', () => {
    const events = [
      baseline('a'.repeat(40), coverage('src/a.js')),
      fix(null, coverage('src/reverted.js')),
      fix('b'.repeat(40), coverage('src/b.js')),
    ];
    expect(recordedCoverageFor(events, 'a'.repeat(40))?.files[0]?.file).toBe('src/a.js');
    expect(recordedCoverageFor(events, 'b'.repeat(40))?.files[0]?.file).toBe('src/b.js');
    expect(recordedCoverageFor(events, 'c'.repeat(40))).toBeNull();
    expect(recordedCoverageFor([baseline('a'.repeat(40))], 'a'.repeat(40))).toBeNull();
  });

  it('given many commits, then the store keeps the latest 64 and the critic reads its own commit', async () => {
    const store = new RecordedCoverageStore();
    for (let i = 0; i < 70; i += 1) store.set(String(i).padStart(40, '0'), coverage(`src/${i}.js`));
    const source = store.source();
    if (source.kind !== 'recorded') throw new Error('expected a recorded source');
    const read = (commit: string) => source.coverage({ commit } as Parameters<typeof source.coverage>[0]);
    expect((await read(String(69).padStart(40, '0')))?.files[0]?.file).toBe('src/69.js');
    expect(await read(String(0).padStart(40, '0'))).toBeNull();
  });
});
