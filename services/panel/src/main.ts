import 'reflect-metadata';
import { bootstrapService } from '@rloop/observability';
import { PanelModule } from './app.module.js';
import { loadPanelConfig } from './config.js';

await bootstrapService({
  name: 'panel',
  loadConfig: loadPanelConfig,
  module: (config) => PanelModule.forRoot(config),
  // The panel counts loop outcomes and round durations from the committed feed (one service does, so nothing counts twice).
  extras: () => ({ observe: { countCommitted: true } }),
});
