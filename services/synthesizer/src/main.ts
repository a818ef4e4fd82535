import 'reflect-metadata';
import { startObservedService } from '@rloop/observability';
import { describeError } from '@rloop/contracts';
import type { KnownConflict } from '@rloop/domain';
import { SynthesizerModule } from './app.module.js';
import { type SynthesizerConfig, loadKnownConflicts, loadSynthesizerConfig } from './config.js';

let config: SynthesizerConfig;
let knownConflicts: readonly KnownConflict[];
try {
  config = loadSynthesizerConfig();
  knownConflicts = await loadKnownConflicts(config.configDir);
} catch (error) {
  process.stderr.write(`${describeError(error)}\n`);
  process.exit(1);
}
await startObservedService({ name: 'synthesizer', module: SynthesizerModule.forRoot(knownConflicts), bus: config.bus, logFormat: config.logFormat, logLevel: config.logLevel, ops: config.ops });
