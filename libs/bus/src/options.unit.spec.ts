import { describe, expect, it } from '@jest/globals';
import { BusConfigError, resolveBusOptions } from './index.js';
import { mergePolicy } from './options.js';

describe('resolveBusOptions', () => {
  it('fills in the documented defaults', () => {
    const options = resolveBusOptions({ service: 'panel', servers: 'nats://127.0.0.1:4222' });

    expect(options).toMatchObject({
      namespace: 'rloop',
      servers: ['nats://127.0.0.1:4222'],
      connect: { timeoutMs: 30_000 },
      streams: {
        duplicateWindowMs: 120_000,
        eventsMaxAgeMs: 7 * 86_400_000,
        commitsMaxAgeMs: 86_400_000,
        criticsMaxAgeMs: 3_600_000,
        deadLettersMaxAgeMs: 30 * 86_400_000,
      },
      consumer: { ackWaitMs: 30_000, maxDeliver: 5, concurrency: 8 },
      provisionStreams: true,
      ackWaitOverrideMs: null,
    });
  });

  it('checks the ack wait override like any ack wait', () => {
    expect(
      resolveBusOptions({ service: 'panel', servers: 'nats://x:4222', ackWaitOverrideMs: 3_000 }).ackWaitOverrideMs,
    ).toBe(3_000);
    expect(() => resolveBusOptions({ service: 'panel', servers: 'nats://x:4222', ackWaitOverrideMs: 10 })).toThrow(
      /ackWaitOverrideMs must be a number >= 1000, got 10/,
    );
  });

  it('leaves stream replicas unset by default and takes 1 to 5 copies', () => {
    expect(resolveBusOptions({ service: 'panel', servers: 'nats://x:4222' }).streams.replicas).toBeNull();
    expect(
      resolveBusOptions({ service: 'panel', servers: 'nats://x:4222', streams: { replicas: 3 } }).streams.replicas,
    ).toBe(3);
    for (const replicas of [0, 6, 1.5]) {
      expect(() => resolveBusOptions({ service: 'panel', servers: 'nats://x:4222', streams: { replicas } })).toThrow(
        /streams\.replicas must be an integer from 1 to 5/,
      );
    }
  });

  it('keeps every server of a list, in order', () => {
    expect(
      resolveBusOptions({ service: 'panel', servers: ['nats://a:4222', 'nats://b:4222', 'nats://c:4222'] }).servers,
    ).toEqual(['nats://a:4222', 'nats://b:4222', 'nats://c:4222']);
  });

  it('names every bad field', () => {
    let error: unknown;
    try {
      resolveBusOptions({
        service: 'bad name',
        servers: [],
        consumer: { maxDeliver: 0 },
        streams: { criticsMaxAgeMs: 1 },
      });
    } catch (e) {
      error = e;
    }

    expect(error).toBeInstanceOf(BusConfigError);
    expect((error as BusConfigError).issues.map((i) => i.path)).toEqual([
      'service',
      'servers',
      'streams.criticsMaxAgeMs',
      'consumer.maxDeliver',
    ]);
  });

  it('merges and checks per-handler overrides', () => {
    const base = resolveBusOptions({ service: 'panel', servers: 'nats://x:4222' }).consumer;

    expect(mergePolicy(base, { backoff: { maxMs: 5_000 } }, 'h')).toMatchObject({
      backoff: { initialMs: 1_000, maxMs: 5_000 },
      maxDeliver: 5,
    });
    expect(() => mergePolicy(base, { ackWaitMs: 10 }, 'h')).toThrow(BusConfigError);
    expect(base.maxOutageMs).toBe(15 * 60_000);
    expect(mergePolicy(base, { maxOutageMs: 0 }, 'h').maxOutageMs).toBe(0);
    expect(() => mergePolicy(base, { maxOutageMs: -1 }, 'h')).toThrow(/h\.maxOutageMs must be a number >= 0, got -1/);
  });
});
