import type { Request, Response } from 'express';
import { z } from 'zod';
import { prisma } from './prisma';

const ProfileChange = z.object({ displayName: z.string().max(80), bio: z.string().max(500) }).partial();

export async function updateProfile(req: Request, res: Response) {
  const data = ProfileChange.parse(req.body);
  const updated = await prisma.user.update({
    where: { id: req.session.userId },
    data,
  });
  res.json(updated);
}
