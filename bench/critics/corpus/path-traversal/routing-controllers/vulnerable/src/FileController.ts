import { Controller, Get, QueryParam } from 'routing-controllers';
import { readFile } from 'fs/promises';

@Controller('/files')
export class FileController {
  @Get('/')
  async read(@QueryParam('name') name: string) {
    return readFile(`/var/data/${name}`, 'utf8'); // VULN: path-traversal
  }
}
