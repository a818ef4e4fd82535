import 'reflect-metadata';
import { bootstrapService } from '@rloop/observability';
import { SynthesizerModule } from './app.module.js';
import { loadSynthesizerConfig } from './config.js';

await bootstrapService({
  name: 'synthesizer',
  loadConfig: loadSynthesizerConfig,
  module: (config) => SynthesizerModule.forRoot(config),
});
