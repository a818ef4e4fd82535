import puppeteer from 'puppeteer';
import { Router } from 'express';

export const pdf = Router();
const APP_ORIGIN = 'https://app.example.com';

pdf.post('/pdf', async (req, res) => {
  const browser = await puppeteer.launch({ headless: true });
  try {
    const page = await browser.newPage();
    const invoice = encodeURIComponent(String(req.body.invoiceId));
    await page.goto(`https://app.example.com/invoices/${invoice}/print`, { waitUntil: 'networkidle0' });
    res.type('application/pdf').set('X-Origin', APP_ORIGIN).send(await page.pdf());
  } finally {
    await browser.close();
  }
});
