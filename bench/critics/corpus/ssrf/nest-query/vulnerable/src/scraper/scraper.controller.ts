import { Controller, Get, Query } from '@nestjs/common';

@Controller('scraper')
export class ScraperController {
  @Get('meta')
  async meta(@Query('url') url: string) {
    const page = await fetch(url); // VULN: ssrf
    return { length: (await page.text()).length };
  }
}
