import puppeteer from 'puppeteer';
import type { Request, Response } from 'express';

export async function scrape(req: Request, res: Response) {
  const browser = await puppeteer.launch();
  const page = await browser.newPage();
  await page.goto('https://shop.example.com/catalog');
  const value = await page.evaluate((selector: string) => document.querySelector(selector)?.textContent ?? null, String(req.body.selector));
  await browser.close();
  res.json({ value });
}
