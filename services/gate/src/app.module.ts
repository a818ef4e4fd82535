import { type DynamicModule, Module } from '@nestjs/common';
import type { GateConfig } from './config.js';
import { GatingController } from './gating/gating.controller.js';
import { SubmitController } from './intake/submit.controller.js';
import { ReleaseController } from './scope/release.controller.js';
import { GATE_CONFIG } from './tokens.js';
import { JournalClientModule } from '@rloop/journal-client';

@Module({})
export class GateModule {
  static forRoot(config: GateConfig): DynamicModule {
    return {
      module: GateModule,
      imports: [JournalClientModule],
      controllers: [SubmitController, GatingController, ReleaseController],
      providers: [{ provide: GATE_CONFIG, useValue: config }],
    };
  }
}
