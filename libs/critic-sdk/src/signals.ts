import type { LoggerService } from '@nestjs/common';
import { describeError } from '@rloop/contracts';

/**
 * On the first SIGTERM or SIGINT: runs `stop` (withdraw from the registry, drain), then exits 0,
 * or 1 when stopping failed. A second signal while stopping is ignored: the drain is bounded.
 */
export function stopOnSignals(name: string, stop: () => Promise<void>, logger: LoggerService): void {
  const onSignal = (signal: NodeJS.Signals): void => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    logger.log(`${name}: ${signal} received, withdrawing from the registry and draining`, 'Bootstrap');
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error(`${name}: stop failed: ${describeError(error)}`, 'Bootstrap');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
