import type { Request, Response } from 'express';

export function cloneRepository(req: Request, res: Response) {
  const { repoUrl } = req.body;
  require('child_process').exec(`git clone ${repoUrl} /tmp/checkout`, (error: Error | null) => { // VULN: command-injection
    res.json({ ok: error === null });
  });
}
