import express from 'express';

export const login = express.Router();

login.post('/login', (req, res) => {
  // ... credentials checked above ...
  res.redirect(req.query.next as string); // VULN: open-redirect
});
