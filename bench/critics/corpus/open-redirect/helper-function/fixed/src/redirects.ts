import type { Request, Response } from 'express';

function sendBack(res: Response, destination: string) {
  if (!/^\/(?!\/)/.test(destination)) {
    res.redirect(302, '/');
    return;
  }
  res.redirect(302, destination);
}

export function afterLogout(req: Request, res: Response) {
  sendBack(res, req.body.returnUrl);
}
