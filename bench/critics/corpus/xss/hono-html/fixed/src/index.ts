import { Hono } from 'hono';
import { html } from 'hono/html';

const app = new Hono();

app.get('/welcome', (c) => {
  const name = c.req.query('name') ?? 'friend';
  return c.html(html`<h1>Welcome, ${name}!</h1>`);
});

export default app;
