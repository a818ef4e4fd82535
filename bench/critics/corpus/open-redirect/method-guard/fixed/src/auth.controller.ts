import { Controller, Get, Query, Res } from '@nestjs/common';
import type { Response } from 'express';

@Controller('auth')
export class AuthController {
  private isLocalPath(target: string): boolean {
    return /^\/[a-z0-9/_-]*$/i.test(target);
  }

  @Get('done')
  done(@Query('next') next: string, @Res() res: Response) {
    if (!this.isLocalPath(next)) return res.redirect('/');
    return res.redirect(next);
  }
}
