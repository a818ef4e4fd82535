import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('http-response model', [
  {
    name: 'HTML bodies, redirects, Location headers and served files',
    vulnerable: {
      'src/routes.js': `module.exports = (app) => {
  app.get('/hi', (req, res) => res.send('<h1>' + req.query.name + '</h1>')); // SINK xss
  app.get('/raw', (req, res) => res.type('html').end(req.query.body)); // SINK xss
  app.get('/go', (req, res) => res.redirect(302, req.query.next)); // SINK redirect
  app.get('/loc', (req, res) => res.set('Location', req.query.next).sendStatus(302)); // SINK redirect
  app.get('/head', (req, res) => { res.writeHead(302, { Location: req.query.next }); res.end(); }); // SINK redirect
  app.get('/file', (req, res) => res.sendFile(req.query.path)); // SINK path
  app.get('/fetch', () => new Response(new URL('http://x').searchParams.get('q'), { headers: { 'Content-Type': 'text/html' } }));
};
`,
    },
    safe: {
      'src/routes.js': `const escapeHtml = require('escape-html');
module.exports = (app) => {
  app.get('/hi', (req, res) => res.send('<h1>' + escapeHtml(req.query.name) + '</h1>'));
  app.get('/raw', (req, res) => res.type('text/plain').end(req.query.body));
  app.get('/json', (req, res) => res.send({ name: req.query.name }));
  app.get('/go', (req, res) => res.redirect('/account/' + encodeURIComponent(req.query.next)));
  app.get('/file', (req, res) => res.sendFile(req.query.path, { root: 'public' }));
};
`,
    },
  },
  {
    name: 'a Fetch API Response declared as HTML',
    vulnerable: {
      'src/worker.ts': `export default {
  async fetch(request: Request) {
    const name = new URL(request.url).searchParams.get('name');
    return new Response('<p>' + name + '</p>', { headers: { 'Content-Type': 'text/html' } }); // SINK xss
  },
};
`,
    },
    safe: {
      'src/worker.ts': `export default {
  async fetch(request: Request) {
    const name = new URL(request.url).searchParams.get('name');
    return new Response('Hello ' + name, { headers: { 'Content-Type': 'text/plain' } });
  },
};
`,
    },
  },
]);
