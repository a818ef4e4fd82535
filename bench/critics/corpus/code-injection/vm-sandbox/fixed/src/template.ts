import vm from 'node:vm';
import { Router } from 'express';

export const templates = Router();
const compiled = new vm.Script('`Hello ${user.name}`');

templates.post('/render', (req, res) => {
  const output = compiled.runInNewContext({ user: { name: String(req.body.name) } });
  res.json({ output });
});
