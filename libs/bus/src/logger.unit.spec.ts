import { describe, expect, it } from '@jest/globals';
import { ServiceLogger } from './index.js';

describe('the service logger', () => {
  it('given a message and a stack carrying credentials, when logged as plain text or JSON, then the credentials are masked', () => {
    const lines: string[] = [];
    const key = ['AKIA', 'Z3MSJV4WUMNRXQ7B'].join('');
    for (const format of ['plain', 'json'] as const) {
      const logger = new ServiceLogger('gate', { format, sink: (line) => lines.push(line) });
      logger.warn(`connecting to nats://gate:s3cretPassw0rd@nats:4222 failed; key ${key}`, 'Bus');
      const error = new Error(`clone of https://ci:ghp_R8xk2LmQ9vT4wZ7pN3cY6bH1sD5fG0aJ2eK8@github.com/o/r failed`);
      logger.error(error);
    }
    const all = lines.join('\n');
    expect(all).not.toMatch(/s3cretPassw0rd|ghp_R8xk2|AKIAZ3MS/);
    expect(lines[0]).toMatch(/nats:\/\/gate:\[REDACTED\]@nats:4222 failed; key \[REDACTED\]$/);
  });
});
