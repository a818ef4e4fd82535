import type { Request, Response } from 'express';

export async function loadPlugin(req: Request, res: Response) {
  const plugin = await import(`./plugins/${req.params.name}`); // VULN: code-injection
  res.json(plugin.describe());
}
