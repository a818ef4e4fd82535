import { describe, expect, it } from '@jest/globals';
import { ValidationError } from '@rloop/contracts';
import { CommonEnvironment, commonSettings, parseEnvironment } from './service-config.js';

describe('the common service environment', () => {
  it('leaves every handler its own ack wait unless RLOOP_ACK_WAIT_MS is set', () => {
    expect(commonSettings(parseEnvironment(CommonEnvironment, {}, 'panel'), 'panel').bus).not.toHaveProperty(
      'ackWaitOverrideMs',
    );
    expect(
      commonSettings(parseEnvironment(CommonEnvironment, { RLOOP_ACK_WAIT_MS: '3000' }, 'panel'), 'panel').bus
        .ackWaitOverrideMs,
    ).toBe(3_000);
  });

  it('sets stream replicas only when RLOOP_STREAM_REPLICAS is given, and reads NATS_URL as a list of servers', () => {
    expect(commonSettings(parseEnvironment(CommonEnvironment, {}, 'panel'), 'panel').bus).not.toHaveProperty('streams');
    const settings = commonSettings(
      parseEnvironment(
        CommonEnvironment,
        { RLOOP_STREAM_REPLICAS: '3', NATS_URL: 'nats://n1:4222, nats://n2:4222,nats://n3:4222' },
        'panel',
      ),
      'panel',
    );
    expect(settings.bus.streams).toEqual({ replicas: 3 });
    expect(settings.bus.servers).toEqual(['nats://n1:4222', 'nats://n2:4222', 'nats://n3:4222']);
    expect(() => parseEnvironment(CommonEnvironment, { RLOOP_STREAM_REPLICAS: '0' }, 'panel')).toThrow(
      /RLOOP_STREAM_REPLICAS/,
    );
    expect(() => parseEnvironment(CommonEnvironment, { RLOOP_STREAM_REPLICAS: '7' }, 'panel')).toThrow(
      /RLOOP_STREAM_REPLICAS/,
    );
  });

  it('names the variable at fault', () => {
    expect(() =>
      parseEnvironment(CommonEnvironment, { RLOOP_ACK_WAIT_MS: '500', RLOOP_NAMESPACE: 'Bad' }, 'panel'),
    ).toThrow(ValidationError);
    expect(() => parseEnvironment(CommonEnvironment, { RLOOP_ACK_WAIT_MS: '500' }, 'panel')).toThrow(
      /panel: bad environment: RLOOP_ACK_WAIT_MS: /,
    );
  });
});
