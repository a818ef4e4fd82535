import { chromium } from 'playwright';
import type { Request, Response } from 'express';

export async function renderCard(req: Request, res: Response) {
  const browser = await chromium.launch();
  const page = await browser.newPage();
  await page.setContent(`<main>${req.body.markup}</main>`); // VULN: ssrf
  res.type('png').send(await page.screenshot());
  await browser.close();
}
