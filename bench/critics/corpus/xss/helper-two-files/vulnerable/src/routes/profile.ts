import { Router } from 'express';
import { renderPage } from '../views/page.js';

export const profile = Router();

profile.get('/profile', (req, res) => {
  const html = renderPage('Profile', `<p>${req.query.bio}</p>`);
  res.send(html); // VULN: xss
});
