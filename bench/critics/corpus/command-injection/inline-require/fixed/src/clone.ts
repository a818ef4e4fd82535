import type { Request, Response } from 'express';

export function cloneRepository(req: Request, res: Response) {
  const { repoUrl } = req.body;
  if (!/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/.test(repoUrl)) return res.status(400).end();
  require('child_process').execFile('git', ['clone', repoUrl, '/tmp/checkout'], (error: Error | null) => {
    res.json({ ok: error === null });
  });
}
