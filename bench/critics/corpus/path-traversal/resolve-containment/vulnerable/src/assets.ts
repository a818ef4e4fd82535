import fs from 'fs';
import path from 'path';
import { Router } from 'express';

const ROOT = path.resolve('public/assets');
export const assets = Router();

assets.get('/assets/*', async (req, res) => {
  const target = path.resolve(ROOT, req.params[0]);
  const body = await fs.promises.readFile(target); // VULN: path-traversal
  res.end(body);
});
