import { Router } from 'express';
import { finishLogin } from './finish';

export const auth = Router();
const DESTINATIONS: Record<string, string> = { home: '/', account: '/account', orders: '/orders' };

auth.get('/auth/callback', (req, res) => {
  const { state } = req.query as { state: string };
  finishLogin(res, DESTINATIONS[state] ?? '/');
});
