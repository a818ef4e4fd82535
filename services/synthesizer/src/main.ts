import 'reflect-metadata';
import { startObservedService } from '@rloop/observability';
import { describeError } from '@rloop/contracts';
import { SynthesizerModule } from './app.module.js';
import { type SynthesizerConfig, loadSynthesizerConfig } from './config.js';

let config: SynthesizerConfig;
try {
  config = loadSynthesizerConfig();
} catch (error) {
  process.stderr.write(`${describeError(error)}\n`);
  process.exit(1);
}
await startObservedService({ name: 'synthesizer', module: SynthesizerModule, bus: config.bus, logFormat: config.logFormat, logLevel: config.logLevel, ops: config.ops });
