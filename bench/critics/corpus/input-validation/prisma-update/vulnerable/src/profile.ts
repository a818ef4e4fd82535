import type { Request, Response } from 'express';
import { prisma } from './prisma';

export async function updateProfile(req: Request, res: Response) {
  const updated = await prisma.user.update({
    where: { id: req.session.userId },
    data: req.body, // VULN: mass-assignment
  });
  res.json(updated);
}
