import { Router } from 'express';
import { z } from 'zod';
import { User } from './models';

export const users = Router();
const NewUser = z.object({ name: z.string().min(1), email: z.string().email() });

users.post('/users', async (req, res) => {
  const parsed = NewUser.safeParse(req.body);
  if (!parsed.success) return res.status(400).json(parsed.error.issues);
  const user = await User.create(parsed.data);
  res.status(201).json(user);
});
