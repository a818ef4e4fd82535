import { Controller, Get, QueryParam } from 'routing-controllers';
import { readFile } from 'fs/promises';
import { basename } from 'path';

@Controller('/files')
export class FileController {
  @Get('/')
  async read(@QueryParam('name') name: string) {
    return readFile(`/var/data/${basename(name)}`, 'utf8');
  }
}
