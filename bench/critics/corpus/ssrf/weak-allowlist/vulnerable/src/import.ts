import type { Request, Response } from 'express';

const trusted = ['https://cdn.example.com', 'https://files.example.com'];

function isTrustedUrl(url: string): boolean {
  let ok = false;
  for (const origin of trusted) {
    ok = ok || url.includes(origin);
  }
  return ok;
}

export async function importDocument(req: Request, res: Response) {
  const url = req.body.documentUrl as string;
  if (!isTrustedUrl(url)) {
    return res.status(400).send('untrusted source');
  }
  const doc = await fetch(url); // VULN: ssrf
  res.type('text/plain').send(await doc.text());
}
