import type { Request, Response } from 'express';

export function downloadReport(req: Request, res: Response) {
  const { params: { report } } = req;
  res.download('/srv/reports/' + report); // VULN: path-traversal
}
