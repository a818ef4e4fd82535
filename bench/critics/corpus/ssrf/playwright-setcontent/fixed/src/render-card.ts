import { chromium } from 'playwright';
import type { Request, Response } from 'express';

const CARD = '<main><h1 id="title"></h1></main>';

export async function renderCard(req: Request, res: Response) {
  const browser = await chromium.launch();
  const page = await browser.newPage();
  await page.setContent(CARD);
  await page.locator('#title').fill(String(req.body.title));
  res.type('png').send(await page.screenshot());
  await browser.close();
}
