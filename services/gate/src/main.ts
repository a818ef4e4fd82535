import 'reflect-metadata';
import { bootstrapService } from '@rloop/observability';
import { GateModule } from './app.module.js';
import { loadGateConfig } from './config.js';

await bootstrapService({ name: 'gate', loadConfig: loadGateConfig, module: (config) => GateModule.forRoot(config) });
