import { spawnSync } from 'child_process';
import type { Request, Response } from 'express';

export function listReports(req: Request, res: Response) {
  const folder = req.query.folder as string;
  const result = spawnSync('ls', ['-1', '--', `/srv/reports/${folder}`], { encoding: 'utf8' });
  res.json(result.stdout.trim().split('\n'));
}
