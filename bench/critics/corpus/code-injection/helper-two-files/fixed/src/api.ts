import { Router } from 'express';
import { evaluateFormula } from './formula';

export const api = Router();

api.get('/price', (req, res) => {
  res.json({ price: evaluateFormula(req.query.formula as string) });
});
