import { BadRequestException, Controller, Get, Query } from '@nestjs/common';

const ALLOWED_HOSTS = new Set(['docs.example.com', 'blog.example.com']);

@Controller('scraper')
export class ScraperController {
  @Get('meta')
  async meta(@Query('url') url: string) {
    const parsed = new URL(url);
    if (!ALLOWED_HOSTS.has(parsed.hostname)) throw new BadRequestException('host not allowed');
    const page = await fetch(parsed);
    return { length: (await page.text()).length };
  }
}
