import { Body, Controller, Post } from '@nestjs/common';
import { saveNote } from './storage';

@Controller('notes')
export class NotesController {
  @Post()
  async create(@Body() body: { fileName: string; content: string }) {
    await saveNote(body.fileName, body.content);
    return { ok: true };
  }
}
