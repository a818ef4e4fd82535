import type { Request, Response } from 'express';

const trusted = ['cdn.example.com', 'files.example.com'];

function isTrustedUrl(url: string): boolean {
  const parsed = new URL(url);
  return parsed.protocol === 'https:' && trusted.includes(parsed.hostname);
}

export async function importDocument(req: Request, res: Response) {
  const url = req.body.documentUrl as string;
  if (!isTrustedUrl(url)) {
    return res.status(400).send('untrusted source');
  }
  const doc = await fetch(url);
  res.type('text/plain').send(await doc.text());
}
