import { type DynamicModule, Module } from '@nestjs/common';
import { JournalClientModule } from '@rloop/journal-client';
import type { SynthesizerConfig } from './config.js';
import { LettersController } from './letters/letters.controller.js';
import { SYNTHESIZER_CONFIG } from './tokens.js';

@Module({})
export class SynthesizerModule {
  static forRoot(config: SynthesizerConfig): DynamicModule {
    return {
      module: SynthesizerModule,
      imports: [JournalClientModule],
      controllers: [LettersController],
      providers: [{ provide: SYNTHESIZER_CONFIG, useValue: config }],
    };
  }
}
