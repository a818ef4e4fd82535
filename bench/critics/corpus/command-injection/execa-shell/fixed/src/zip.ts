import { execa } from 'execa';
import type { Request, Response } from 'express';

export async function zipFolder(req: Request, res: Response) {
  const { folder } = req.body;
  await execa('zip', ['-r', 'out.zip', '--', String(folder)]);
  res.sendStatus(204);
}
