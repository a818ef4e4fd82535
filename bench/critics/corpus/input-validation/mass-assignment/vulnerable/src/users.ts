import { Router } from 'express';
import { User } from './models';

export const users = Router();

users.post('/users', async (req, res) => {
  const user = await User.create(req.body); // VULN: mass-assignment
  res.status(201).json(user);
});
