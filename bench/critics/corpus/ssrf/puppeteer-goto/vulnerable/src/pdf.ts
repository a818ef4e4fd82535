import puppeteer from 'puppeteer';
import { Router } from 'express';

export const pdf = Router();

pdf.post('/pdf', async (req, res) => {
  const browser = await puppeteer.launch({ headless: true });
  try {
    const page = await browser.newPage();
    await page.goto(req.body.page, { waitUntil: 'networkidle0' }); // VULN: ssrf
    res.type('application/pdf').send(await page.pdf());
  } finally {
    await browser.close();
  }
});
