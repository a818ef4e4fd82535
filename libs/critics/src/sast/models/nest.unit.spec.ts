import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('nest model', [
  {
    name: '@Body, @Query, @Param and @Req input into SQL',
    vulnerable: {
      'src/users.controller.ts': `import { Body, Controller, Get, Param, Post, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import { DataSource } from 'typeorm';
@Controller('users')
export class UsersController {
  constructor(private readonly dataSource: DataSource) {}
  @Get(':id')
  one(@Param('id') id: string, @Query('fields') fields: string) {
    return this.dataSource.query(\`SELECT \${fields} FROM users WHERE id = \${id}\`); // SINK sql
  }
  @Post('search')
  search(@Body() body: { name: string }, @Req() req: Request) {
    return this.dataSource.query("SELECT * FROM users WHERE name = '" + body.name + "' OR agent = '" + req.headers['user-agent'] + "'"); // SINK sql
  }
}
`,
    },
    safe: {
      'src/users.controller.ts': `import { Body, Controller, Get, Param, ParseIntPipe, Post } from '@nestjs/common';
import { DataSource } from 'typeorm';
@Controller('users')
export class UsersController {
  constructor(private readonly dataSource: DataSource) {}
  @Get(':id')
  one(@Param('id', ParseIntPipe) id: number) {
    return this.dataSource.query(\`SELECT name FROM users WHERE id = \${id}\`);
  }
  @Post('search')
  search(@Body() body: { name: string }) {
    return this.dataSource.query('SELECT * FROM users WHERE name = $1', [body.name]);
  }
}
`,
    },
  },
]);
