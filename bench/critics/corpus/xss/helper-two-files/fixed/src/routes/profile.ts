import { Router } from 'express';
import escapeHtml from 'escape-html';
import { renderPage } from '../views/page.js';

export const profile = Router();

profile.get('/profile', (req, res) => {
  const html = renderPage('Profile', `<p>${escapeHtml(String(req.query.bio))}</p>`);
  res.send(html);
});
