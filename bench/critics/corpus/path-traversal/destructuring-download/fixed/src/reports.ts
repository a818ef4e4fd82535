import type { Request, Response } from 'express';

export function downloadReport(req: Request, res: Response) {
  const { params: { report } } = req;
  if (!/^[a-z0-9-]+\.pdf$/.test(report)) {
    res.status(400).end();
    return;
  }
  res.download('/srv/reports/' + report);
}
