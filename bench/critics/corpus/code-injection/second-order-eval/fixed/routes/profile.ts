import type { Request, Response } from 'express';
import { UserModel } from '../models/user';

export async function profile(req: Request, res: Response) {
  const user = await UserModel.findByPk(req.session.userId);
  if (!user) return res.sendStatus(404);
  res.render('profile', { signature: user.signature });
}
