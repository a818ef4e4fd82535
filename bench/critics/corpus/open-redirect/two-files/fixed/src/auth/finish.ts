import type { Response } from 'express';

export function finishLogin(res: Response, destination: string): void {
  res.cookie('session', 'issued', { httpOnly: true });
  res.redirect(destination);
}
