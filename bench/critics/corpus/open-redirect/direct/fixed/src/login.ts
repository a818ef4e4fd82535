import express from 'express';

export const login = express.Router();

login.post('/login', (req, res) => {
  // ... credentials checked above ...
  const next = String(req.query.next ?? '/');
  if (!next.startsWith('/') || next.startsWith('//')) {
    return res.redirect('/');
  }
  res.redirect(next);
});
