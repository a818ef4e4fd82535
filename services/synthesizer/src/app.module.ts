import { Module } from '@nestjs/common';
import { LettersController } from './letters/letters.controller.js';

@Module({ controllers: [LettersController] })
export class SynthesizerModule {}
