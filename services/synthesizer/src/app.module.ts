import { type DynamicModule, Module } from '@nestjs/common';
import type { KnownConflict } from '@rloop/domain';
import { JournalClientModule } from '@rloop/journal-client';
import { LettersController } from './letters/letters.controller.js';
import { KNOWN_CONFLICTS } from './tokens.js';

@Module({})
export class SynthesizerModule {
  /** `knownConflicts`: config/loop.yaml's critic_disagreement table, read once at start. */
  static forRoot(knownConflicts: readonly KnownConflict[]): DynamicModule {
    return { module: SynthesizerModule, imports: [JournalClientModule], controllers: [LettersController], providers: [{ provide: KNOWN_CONFLICTS, useValue: knownConflicts }] };
  }
}
