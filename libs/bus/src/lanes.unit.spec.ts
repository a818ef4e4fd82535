import { describe, expect, it } from '@jest/globals';
import { LaneScheduler } from './lanes.js';

function seqs(work: { entries: readonly { seq: number }[] }): number[] {
  return work.entries.map((e) => e.seq);
}

describe('LaneScheduler', () => {
  it('runs one work item per key in stream order, keys in parallel up to the concurrency', () => {
    const lanes = new LaneScheduler<string>({ concurrency: 2, batchMax: 1 });
    lanes.add('a', 2, 'a2');
    lanes.add('a', 1, 'a1');
    lanes.add('b', 3, 'b3');
    lanes.add('c', 4, 'c4');

    const first = lanes.take(0);

    expect(first.map((w) => [w.key, seqs(w)])).toEqual([
      ['a', [1]],
      ['b', [3]],
    ]);
    expect(lanes.take(0)).toEqual([]);
    lanes.finish(first[0]!);
    expect(lanes.take(0).map((w) => [w.key, seqs(w)])).toEqual([['c', [4]]]);
    lanes.finish(first[1]!);
    expect(lanes.take(0).map((w) => [w.key, seqs(w)])).toEqual([['a', [2]]]);
  });

  it('holds later entries of a key after a retry until the failed one is back and done', () => {
    const lanes = new LaneScheduler<string>({ concurrency: 4, batchMax: 1 });
    lanes.add('a', 1, 'first');
    lanes.add('a', 2, 'second');
    const [work] = lanes.take(0);
    lanes.finish(work!, { seqs: [1], until: 1_000 });

    expect(lanes.take(10)).toEqual([]);
    expect(lanes.nextWake()).toBe(1_000);
    lanes.add('a', 1, 'first again');
    const [retry] = lanes.take(20);
    expect(retry?.entries.map((e) => e.msg)).toEqual(['first again']);
    lanes.finish(retry!);
    expect(lanes.take(30).map(seqs)).toEqual([[2]]);
  });

  it('releases a held key when the failed entry never comes back before the deadline', () => {
    const lanes = new LaneScheduler<string>({ concurrency: 4, batchMax: 1 });
    lanes.add('a', 1, 'first');
    lanes.add('a', 2, 'second');
    const [work] = lanes.take(0);
    lanes.finish(work!, { seqs: [1], until: 1_000 });

    expect(lanes.take(999)).toEqual([]);
    expect(lanes.take(1_000).map(seqs)).toEqual([[2]]);
  });

  it('replaces a held entry on redelivery instead of holding it twice', () => {
    const lanes = new LaneScheduler<string>({ concurrency: 1, batchMax: 1 });
    expect(lanes.add('a', 1, 'old')).toBe('added');
    const [work] = lanes.take(0);
    expect(lanes.add('a', 1, 'new')).toBe('replaced');

    expect(lanes.held).toBe(1);
    expect(work?.entries[0]?.msg).toBe('new');
  });

  it('hands out batches of up to batchMax in stream order', () => {
    const lanes = new LaneScheduler<number>({ concurrency: 1, batchMax: 3 });
    for (const seq of [5, 1, 4, 2, 3]) lanes.add('', seq, seq);

    const [first] = lanes.take(0);
    expect(seqs(first!)).toEqual([1, 2, 3]);
    expect(lanes.waiting).toBe(2);
    lanes.finish(first!);
    expect(lanes.take(0).map(seqs)).toEqual([[4, 5]]);
  });

  it('gives back only idle keys waiting entries when asked to, and everything otherwise', () => {
    const lanes = new LaneScheduler<string>({ concurrency: 1, batchMax: 1 });
    lanes.add('a', 1, 'a1');
    lanes.add('a', 2, 'a2');
    lanes.add('b', 3, 'b3');
    const [running] = lanes.take(0);

    expect(lanes.drainWaiting({ idleLanesOnly: true }).map((e) => e.msg)).toEqual(['b3']);
    lanes.finish(running!);
    expect(lanes.drainWaiting({ idleLanesOnly: true }).map((e) => e.msg)).toEqual(['a2']);
    expect(lanes.held).toBe(0);
  });

  it('visits every held entry for heartbeats', () => {
    const lanes = new LaneScheduler<string>({ concurrency: 1, batchMax: 1 });
    lanes.add('a', 1, 'a1');
    lanes.add('b', 2, 'b2');
    lanes.take(0);
    const seen: string[] = [];
    lanes.forEachHeld((e) => seen.push(e.msg));

    expect(seen.sort()).toEqual(['a1', 'b2']);
  });
});
