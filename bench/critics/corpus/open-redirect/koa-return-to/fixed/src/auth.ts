import Koa from 'koa';

const app = new Koa();
const ALLOWED_RETURNS = ['/dashboard', '/settings', '/billing'];

app.use(async (ctx) => {
  if (ctx.path === '/sso/callback') {
    const returnTo = ctx.query.returnTo as string;
    ctx.redirect(ALLOWED_RETURNS.includes(returnTo) ? returnTo : '/dashboard');
  }
});
