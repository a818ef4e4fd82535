import { Module } from '@nestjs/common';
import { LettersController } from './letters/letters.controller.js';
import { JournalClientModule } from '@rloop/journal-client';

@Module({ imports: [JournalClientModule], controllers: [LettersController] })
export class SynthesizerModule {}
