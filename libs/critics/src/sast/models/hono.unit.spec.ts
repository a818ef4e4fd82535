import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('hono model', [
  {
    name: 'c.req.query() written with c.html',
    vulnerable: {
      'src/index.ts': `import { Hono } from 'hono';
const app = new Hono();
app.get('/hello', (c) => c.html('<h1>Hello ' + c.req.query('name') + '</h1>')); // SINK xss
export default app;
`,
    },
    safe: {
      'src/index.ts': `import { Hono } from 'hono';
import { html } from 'hono/html';
const app = new Hono();
app.get('/hello', (c) => c.html(html\`<h1>Hello \${c.req.query('name')}</h1>\`));
app.get('/json', (c) => c.json({ name: c.req.query('name') }));
export default app;
`,
    },
  },
]);
