import Koa from 'koa';
import send from 'koa-send';

const app = new Koa();

app.use(async (ctx) => {
  await send(ctx, `public/${ctx.query.file}`); // VULN: path-traversal
});

export default app;
