import express from 'express';

const app = express();

app.get('/api/link-preview', async (req, res) => {
  const target = String(req.query.url);
  const page = await fetch(target); // VULN: ssrf
  const html = await page.text();
  res.json({ title: /<title>(.*?)<\/title>/i.exec(html)?.[1] ?? null });
});

export default app;
