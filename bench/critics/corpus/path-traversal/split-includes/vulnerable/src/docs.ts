import path from 'node:path';
import { promises as fsp } from 'node:fs';
import type { Request, Response } from 'express';

export async function readDoc(req: Request, res: Response) {
  const name = String(req.query.doc);
  const text = await fsp.readFile(path.join('/srv/docs', name), 'utf8'); // VULN: path-traversal
  res.type('text/plain').send(text);
}
