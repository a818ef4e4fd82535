import vm from 'node:vm';
import { Router } from 'express';

export const templates = Router();

templates.post('/render', (req, res) => {
  const { code } = req.body;
  const output = vm.runInNewContext(code, { user: req.user }); // VULN: code-injection
  res.json({ output });
});
