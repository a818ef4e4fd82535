import * as fs from 'fs';
import express from 'express';

const TEMPLATES = ['home', 'about', 'pricing'];

function loadTemplate(name: string): string {
  return fs.readFileSync(`./templates/${name}.html`, 'utf8');
}

export const pages = express.Router();
pages.get('/page', (req, res) => {
  const name = req.query.t as string;
  if (!TEMPLATES.includes(name)) return res.status(404).end();
  res.type('html').send(loadTemplate(name));
});
