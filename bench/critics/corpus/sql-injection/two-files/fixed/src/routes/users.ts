import { Router } from 'express';
import { UserRepository } from '../repositories/user-repository.js';

const users = new UserRepository();
export const router = Router();

router.get('/users', async (req, res, next) => {
  try {
    res.json(await users.findByName(String(req.query.name)));
  } catch (error) {
    next(error);
  }
});
