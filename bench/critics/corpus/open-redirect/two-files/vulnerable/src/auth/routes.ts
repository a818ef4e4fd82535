import { Router } from 'express';
import { finishLogin } from './finish';

export const auth = Router();

auth.get('/auth/callback', (req, res) => {
  const { state } = req.query as { state: string };
  finishLogin(res, decodeURIComponent(state));
});
