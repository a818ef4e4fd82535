import type { Request, Response } from 'express';

function sendBack(res: Response, destination: string) {
  res.redirect(302, destination); // VULN: open-redirect
}

export function afterLogout(req: Request, res: Response) {
  sendBack(res, req.body.returnUrl);
}
