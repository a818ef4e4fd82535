import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { type LoggerService } from '@nestjs/common';
import { stopOnSignals } from './bootstrap.js';

function recordingLogger(): LoggerService & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    log: (m: unknown) => lines.push(`log ${String(m)}`),
    error: (m: unknown) => lines.push(`error ${String(m)}`),
    warn: (m: unknown) => lines.push(`warn ${String(m)}`),
  };
}

/** Resolves once process.exit has been called (the stop settles on a later tick). */
function exitCode(exit: jest.SpiedFunction<typeof process.exit>): Promise<unknown> {
  return new Promise((resolve) => {
    exit.mockImplementation(((code?: number) => resolve(code)) as typeof process.exit);
  });
}

describe('stopOnSignals', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('given a running service, when SIGTERM arrives, then it stops once and exits 0', async () => {
    const exit = jest.spyOn(process, 'exit');
    const exited = exitCode(exit);
    const stop = jest.fn(() => Promise.resolve());
    const logger = recordingLogger();
    const release = stopOnSignals('panel', stop, logger);

    process.emit('SIGTERM', 'SIGTERM');

    await expect(exited).resolves.toBe(0);
    expect(stop).toHaveBeenCalledTimes(1);
    expect(logger.lines).toEqual(['log panel: SIGTERM received, stopping']);
    release();
  });

  it('given a stop that fails, when SIGINT arrives, then it says why and exits 1', async () => {
    const exit = jest.spyOn(process, 'exit');
    const exited = exitCode(exit);
    const logger = recordingLogger();
    const release = stopOnSignals('gate', () => Promise.reject(new Error('drain timed out')), logger);

    process.emit('SIGINT', 'SIGINT');

    await expect(exited).resolves.toBe(1);
    expect(logger.lines).toEqual(['log gate: SIGINT received, stopping', 'error gate: stop failed: drain timed out']);
    release();
  });

  it('given the handlers released (a stop begun another way), when a signal arrives, then nothing more runs', () => {
    const before = process.listenerCount('SIGTERM');
    const stop = jest.fn(() => Promise.resolve());
    const release = stopOnSignals('journal', stop, recordingLogger());
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);

    release();

    expect(process.listenerCount('SIGTERM')).toBe(before);
    expect(process.listenerCount('SIGINT')).toBe(before === 0 ? 0 : process.listenerCount('SIGINT'));
    expect(stop).not.toHaveBeenCalled();
  });
});
