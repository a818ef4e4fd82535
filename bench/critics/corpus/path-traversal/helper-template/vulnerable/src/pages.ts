import * as fs from 'fs';
import express from 'express';

function loadTemplate(name: string): string {
  return fs.readFileSync(`./templates/${name}.html`, 'utf8'); // VULN: path-traversal
}

export const pages = express.Router();
pages.get('/page', (req, res) => {
  res.type('html').send(loadTemplate(req.query.t as string));
});
