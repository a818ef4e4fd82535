import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('node:path model (taint through path, url, util)', [
  {
    name: 'input joined, formatted and parsed on its way to a file read',
    vulnerable: {
      'src/docs.js': `const fs = require('fs');
const path = require('path');
const util = require('util');
const url = require('url');
module.exports = (req, res) => {
  const file = path.join(__dirname, 'docs', req.query.page);
  fs.readFileSync(file); // SINK path
  fs.readFileSync(util.format('docs/%s.md', req.query.page)); // SINK path
  fs.readFileSync(url.parse(req.url).pathname); // SINK path
  res.end();
};
`,
    },
    safe: {
      'src/docs.js': `const fs = require('fs');
const path = require('path');
const DOCS = path.join(__dirname, 'docs');
module.exports = (req, res) => {
  const file = path.resolve(DOCS, req.query.page);
  if (!file.startsWith(DOCS + path.sep)) return res.status(404).end();
  fs.readFileSync(file);
  fs.readFileSync(path.join(DOCS, path.basename(req.query.page)));
  const rel = path.relative(DOCS, path.resolve(DOCS, req.query.other));
  if (rel.startsWith('..')) return res.status(404).end();
  fs.readFileSync(path.join(DOCS, req.query.other));
  res.end();
};
`,
    },
  },
]);
