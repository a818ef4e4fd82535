import fs from 'fs';
import path from 'path';
import { Router } from 'express';

const ROOT = path.resolve('public/assets');
export const assets = Router();

assets.get('/assets/*', async (req, res) => {
  const target = path.resolve(ROOT, req.params[0]);
  if (!target.startsWith(ROOT + path.sep)) {
    res.status(403).end();
    return;
  }
  const body = await fs.promises.readFile(target);
  res.end(body);
});
