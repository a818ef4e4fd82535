import type { Request, Response } from 'express';

const PLUGINS: Record<string, () => Promise<{ describe(): unknown }>> = {
  csv: () => import('./plugins/csv'),
  pdf: () => import('./plugins/pdf'),
};

export async function loadPlugin(req: Request, res: Response) {
  const load = PLUGINS[req.params.name];
  if (load === undefined) return res.status(404).end();
  const plugin = await load();
  res.json(plugin.describe());
}
