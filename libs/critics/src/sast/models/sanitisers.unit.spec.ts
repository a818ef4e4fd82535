import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('sanitisers model', [
  {
    name: 'each sanitiser cleans only its own kind',
    vulnerable: {
      'src/mix.js': `const escapeHtml = require('escape-html');
const SqlString = require('sqlstring');
const { quote } = require('shell-quote');
const sanitize = require('sanitize-filename');
const { exec } = require('child_process');
module.exports = (req, res, db) => {
  db.query('SELECT * FROM t WHERE n = ' + escapeHtml(req.query.n)); // SINK sql
  exec('ls ' + SqlString.escape(req.query.dir)); // SINK command
  res.send('<p>' + quote([req.query.x]) + '</p>'); // SINK xss
  exec('cat ' + sanitize(req.query.file)); // SINK command
};
`,
    },
    safe: {
      'src/mix.js': `const escapeHtml = require('escape-html');
const SqlString = require('sqlstring');
const { quote } = require('shell-quote');
const sanitize = require('sanitize-filename');
const fs = require('fs');
const { exec } = require('child_process');
module.exports = (req, res, db) => {
  db.query('SELECT * FROM t WHERE n = ' + SqlString.escape(req.query.n));
  exec('ls ' + quote([req.query.dir]));
  res.send('<p>' + escapeHtml(req.query.x) + '</p>');
  fs.readFileSync('files/' + sanitize(req.query.file));
};
`,
    },
  },
]);
