import type { Request, Response } from 'express';
import { UserModel } from '../models/user';

export async function updateProfile(req: Request, res: Response) {
  const user = await UserModel.findByPk(req.session.userId);
  if (!user) return res.sendStatus(404);
  await user.update({ signature: req.body.signature });
  res.redirect('/profile');
}
