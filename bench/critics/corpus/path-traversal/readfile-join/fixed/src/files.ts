import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Request, Response } from 'express';

const UPLOADS = '/var/app/uploads';

export async function download(req: Request, res: Response) {
  const data = await readFile(path.join(UPLOADS, path.basename(req.params.name)));
  res.type('application/octet-stream').send(data);
}
