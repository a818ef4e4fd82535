import Koa from 'koa';
import send from 'koa-send';

const app = new Koa();

app.use(async (ctx) => {
  await send(ctx, String(ctx.query.file), { root: 'public' });
});

export default app;
