import { describe, expect, it } from '@jest/globals';
import { CommitSignal } from './notifier.js';
import { Mutex } from './pglite-dialect.js';

describe('CommitSignal', () => {
  it('wakes at once for a notification that arrived after the waiter last looked', async () => {
    const signal = new CommitSignal();
    const seen = signal.current;
    signal.notify();
    expect(await signal.wait(seen, 60_000)).toBe('committed');
  });

  it('wakes a waiter on notify, on abort, or after the timeout', async () => {
    const signal = new CommitSignal();
    const waiting = signal.wait(signal.current, 60_000);
    signal.notify();
    expect(await waiting).toBe('committed');
    const controller = new AbortController();
    const aborted = signal.wait(signal.current, 60_000, controller.signal);
    controller.abort();
    expect(await aborted).toBe('aborted');
    expect(await signal.wait(signal.current, 1)).toBe('timeout');
  });
});

describe('Mutex', () => {
  it('hands the lock out one holder at a time, first come first served', async () => {
    const mutex = new Mutex();
    const order: string[] = [];
    const release = await mutex.acquire();
    const second = mutex.runExclusive(() => {
      order.push('second');
      return Promise.resolve();
    });
    const third = mutex.runExclusive(() => {
      order.push('third');
      return Promise.resolve();
    });
    order.push('first');
    release();
    await Promise.all([second, third]);
    expect(order).toEqual(['first', 'second', 'third']);
  });
});
