import { describe, expect, it } from '@jest/globals';
import { type LogLevel } from '@nestjs/common';
import { ServiceLogger, nestLevelsFrom, withLogContext } from './index.js';

function capture(
  format: 'json' | 'plain',
  levels?: LogLevel[],
): { logger: ServiceLogger; lines: { line: string; level: LogLevel }[] } {
  const lines: { line: string; level: LogLevel }[] = [];
  return {
    logger: new ServiceLogger('panel', {
      format,
      ...(levels === undefined ? {} : { levels }),
      sink: (line, level) => lines.push({ line, level }),
    }),
    lines,
  };
}

describe('service logs through pino', () => {
  it('writes JSON lines with the plan, run, round, event and trace of the message being handled', () => {
    const { logger, lines } = capture('json');
    withLogContext({ plan: 'add-billing', run_id: 'r1', round: 2, event_id: 'e1' }, () =>
      withLogContext({ trace_id: 't1' }, () => logger.warn('slow critic', 'Panel')),
    );
    logger.log('idle');
    expect(JSON.parse(lines[0]?.line ?? '')).toMatchObject({
      level_name: 'warn',
      service: 'panel',
      context: 'Panel',
      msg: 'slow critic',
      plan: 'add-billing',
      run_id: 'r1',
      round: 2,
      event_id: 'e1',
      trace_id: 't1',
    });
    expect(lines[0]?.level).toBe('warn');
    expect(JSON.parse(lines[1]?.line ?? '')).not.toHaveProperty('plan');
  });

  it('writes one line of text in the plain format, with the context fields at its end', () => {
    const { logger, lines } = capture('plain');
    withLogContext({ plan: 'add-billing' }, () => logger.log('panel: ready (3 consumers bound)', 'Bootstrap'));
    expect(lines[0]?.line).toMatch(
      /INFO: panel \[Bootstrap\] panel: ready \(3 consumers bound\) \{"plan":"add-billing"\}$/,
    );
    expect(lines[0]?.line).not.toContain('\n');
  });

  it('writes only levels at or above RLOOP_LOG_LEVEL', () => {
    const { logger, lines } = capture('json', nestLevelsFrom('warn'));
    logger.debug('hidden');
    logger.log('hidden too');
    logger.error('shown', 'a stack', 'Ctx');
    expect(lines.map((l) => JSON.parse(l.line) as { msg: string; stack?: string })).toEqual([
      expect.objectContaining({ msg: 'shown', stack: 'a stack' }),
    ]);
    expect(nestLevelsFrom('trace')).toEqual(['verbose', 'debug', 'log', 'warn', 'error', 'fatal']);
  });

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
