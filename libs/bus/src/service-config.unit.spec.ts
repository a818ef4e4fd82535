import { describe, expect, it } from '@jest/globals';
import { ValidationError } from '@rloop/contracts';
import { CommonEnvironment, commonSettings, parseEnvironment } from './service-config.js';

describe('the common service environment', () => {
  it('leaves every handler its own ack wait unless RLOOP_ACK_WAIT_MS is set', () => {
    expect(commonSettings(parseEnvironment(CommonEnvironment, {}, 'panel'), 'panel').bus).not.toHaveProperty('ackWaitOverrideMs');
    expect(commonSettings(parseEnvironment(CommonEnvironment, { RLOOP_ACK_WAIT_MS: '3000' }, 'panel'), 'panel').bus.ackWaitOverrideMs).toBe(3_000);
  });

  it('names the variable at fault', () => {
    expect(() => parseEnvironment(CommonEnvironment, { RLOOP_ACK_WAIT_MS: '500', RLOOP_NAMESPACE: 'Bad' }, 'panel')).toThrow(ValidationError);
    expect(() => parseEnvironment(CommonEnvironment, { RLOOP_ACK_WAIT_MS: '500' }, 'panel')).toThrow(/panel: bad environment: RLOOP_ACK_WAIT_MS: /);
  });
});
