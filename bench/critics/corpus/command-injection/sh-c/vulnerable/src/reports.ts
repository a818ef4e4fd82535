import { spawnSync } from 'child_process';
import type { Request, Response } from 'express';

export function listReports(req: Request, res: Response) {
  const folder = req.query.folder as string;
  const result = spawnSync('sh', ['-c', `ls -1 /srv/reports/${folder}`], { encoding: 'utf8' }); // VULN: command-injection
  res.json(result.stdout.trim().split('\n'));
}
