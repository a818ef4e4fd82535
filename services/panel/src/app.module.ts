import { type DynamicModule, Module } from '@nestjs/common';
import type { PanelConfig } from './config.js';
import { DecideController } from './deciding/decide.controller.js';
import { DetectController } from './detection/detect.controller.js';
import { LoopDetector } from './detection/loop-detector.js';
import { FixDeadlineController } from './fix-deadline/fix-deadline.controller.js';
import { PanelRegistry } from './registry/panel-registry.js';
import { PANEL_CONFIG } from './tokens.js';
import { JournalClientModule } from '@rloop/journal-client';

@Module({})
export class PanelModule {
  static forRoot(config: PanelConfig): DynamicModule {
    return {
      module: PanelModule,
      imports: [JournalClientModule],
      controllers: [DecideController, DetectController, FixDeadlineController],
      providers: [{ provide: PANEL_CONFIG, useValue: config }, PanelRegistry, LoopDetector],
    };
  }
}
