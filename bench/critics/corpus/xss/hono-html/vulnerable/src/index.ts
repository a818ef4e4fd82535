import { Hono } from 'hono';

const app = new Hono();

app.get('/welcome', (c) => {
  const name = c.req.query('name') ?? 'friend';
  return c.html(`<h1>Welcome, ${name}!</h1>`); // VULN: xss
});

export default app;
