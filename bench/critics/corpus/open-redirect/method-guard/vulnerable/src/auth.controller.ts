import { Controller, Get, Query, Res } from '@nestjs/common';
import type { Response } from 'express';

@Controller('auth')
export class AuthController {
  @Get('done')
  done(@Query('next') next: string, @Res() res: Response) {
    return res.redirect(next); // VULN: open-redirect
  }
}
