import ejs from 'ejs';
import { Router } from 'express';

export const mailPreview = Router();
const TEMPLATE = '<p>Hello <%= user.name %>, <%= message %></p>';

mailPreview.post('/mail/preview', (req, res) => {
  const html = ejs.render(TEMPLATE, { user: { name: 'Ada' }, message: String(req.body.message) });
  res.type('html').send(html);
});
