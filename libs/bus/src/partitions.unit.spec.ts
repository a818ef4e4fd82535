import { describe, expect, it } from '@jest/globals';
import { partitionOf } from './consumer-runner.js';

describe('batch partitions', () => {
  it('given one partition, when a plan is placed, then every plan shares the single lane', () => {
    expect(partitionOf('plan-a', 1)).toBe('');
    expect(partitionOf('plan-b', 1)).toBe('');
  });

  it('given several partitions, when the same plan is placed twice, then it lands in the same lane (its events stay in order)', () => {
    expect(partitionOf('add-billing', 4)).toBe(partitionOf('add-billing', 4));
  });

  it('given many plans, when placed over four partitions, then every partition gets some (the batches can run side by side)', () => {
    const used = new Set(Array.from({ length: 200 }, (_, i) => partitionOf(`plan-${i}`, 4)));
    expect([...used].sort()).toEqual(['0', '1', '2', '3']);
  });
});
