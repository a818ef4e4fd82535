import { Router } from 'express';
import { runCommand } from '../lib/shell.js';

export const backup = Router();

backup.post('/backup', async (req, res) => {
  const output = await runCommand('tar', ['-czf', '/backups/latest.tgz', '--', String(req.body.directory)]);
  res.json({ output });
});
