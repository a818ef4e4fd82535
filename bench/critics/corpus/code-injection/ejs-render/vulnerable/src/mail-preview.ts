import ejs from 'ejs';
import { Router } from 'express';

export const mailPreview = Router();

mailPreview.post('/mail/preview', (req, res) => {
  const html = ejs.render(req.body.template, { user: { name: 'Ada' } }); // VULN: code-injection
  res.type('html').send(html);
});
