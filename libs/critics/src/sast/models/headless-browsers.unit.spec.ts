import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('headless-browsers model', [
  {
    name: 'puppeteer goto, setContent and a string evaluate from request input',
    vulnerable: {
      'src/screenshot.ts': `import puppeteer from 'puppeteer';
import type { Request, Response } from 'express';
export async function screenshot(req: Request, res: Response) {
  const browser = await puppeteer.launch();
  const page = await browser.newPage();
  await page.goto(req.query.url as string); // SINK ssrf
  await page.setContent(req.body.html); // SINK ssrf
  const title = await page.evaluate(req.body.script); // SINK code
  res.json({ title, png: await page.screenshot() });
}
`,
    },
    safe: {
      'src/screenshot.ts': `import puppeteer from 'puppeteer';
import type { Request, Response } from 'express';
const REPORTS: Record<string, string> = { daily: 'https://reports.example.com/daily' };
export async function screenshot(req: Request, res: Response) {
  const browser = await puppeteer.launch();
  const page = await browser.newPage();
  const target = REPORTS[String(req.query.report)];
  if (!Object.hasOwn(REPORTS, String(req.query.report))) return res.status(404).end();
  await page.goto(target);
  const title = await page.evaluate((selector) => document.querySelector(selector)?.textContent, String(req.query.selector));
  res.json({ title, png: await page.screenshot() });
}
`,
    },
  },
  {
    name: 'a playwright page passed in as a typed parameter',
    vulnerable: {
      'src/render.ts': `import type { Page } from 'playwright';
export async function render(page: Page, req: { body: { url: string } }) {
  await page.goto(req.body.url); // SINK ssrf
}
`,
    },
    safe: {
      'src/render.ts': `import type { Page } from 'playwright';
export async function render(page: Page, req: { body: { path: string } }) {
  await page.goto('https://app.example.com/' + encodeURIComponent(req.body.path));
}
`,
    },
  },
]);
