import Koa from 'koa';

const app = new Koa();

app.use(async (ctx) => {
  if (ctx.path === '/sso/callback') {
    const returnTo = ctx.query.returnTo as string;
    ctx.redirect(returnTo); // VULN: open-redirect
  }
});
