import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('template-engines model (server-side template injection)', [
  {
    name: 'ejs, pug, handlebars, nunjucks and lodash templates compiled from request input',
    vulnerable: {
      'src/render.js': `const ejs = require('ejs');
const pug = require('pug');
const Handlebars = require('handlebars');
const nunjucks = require('nunjucks');
const _ = require('lodash');
module.exports = function preview(req, res) {
  const source = req.body.template;
  const a = ejs.render(source, { user: req.user }); // SINK code
  const b = pug.compile(source)(); // SINK code
  const c = Handlebars.compile(source)({}); // SINK code
  const d = nunjucks.renderString(source, {}); // SINK code
  const e = _.template(source)({}); // SINK code
  res.json({ a, b, c, d, e });
};
`,
    },
    safe: {
      'src/render.js': `const ejs = require('ejs');
const pug = require('pug');
const Handlebars = require('handlebars');
const greeting = pug.compile('p Hello #{name}');
const card = Handlebars.compile('<b>{{name}}</b>');
module.exports = function preview(req, res) {
  const name = String(req.body.name);
  res.json({ a: ejs.render('<p><%= name %></p>', { name }), b: greeting({ name }), c: card({ name }) });
};
`,
    },
  },
  {
    name: 'a template file named by input, and a view name passed to res.render',
    vulnerable: {
      'src/pages.ts': `import ejs from 'ejs';
import express from 'express';
const app = express();
app.get('/page', async (req, res) => {
  res.send(await ejs.renderFile('views/' + req.query.name + '.ejs')); // SINK path
});
app.get('/view', (req, res) => {
  res.render(String(req.query.view)); // SINK path
});
app.post('/erase', (req, res) => {
  res.render('done', { ...req.body }); // SINK path
});
`,
    },
    safe: {
      'src/pages.ts': `import ejs from 'ejs';
import express from 'express';
const app = express();
const VIEWS = ['home', 'about'];
app.get('/page', async (req, res) => {
  const name = String(req.query.name);
  if (!VIEWS.includes(name)) return res.status(404).end();
  res.send(await ejs.renderFile('views/' + name + '.ejs'));
});
app.post('/erase', (req, res) => {
  res.render('done', { email: String(req.body.email) });
});
`,
    },
  },
]);
