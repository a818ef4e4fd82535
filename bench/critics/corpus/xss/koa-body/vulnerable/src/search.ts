import Router from '@koa/router';

export const router = new Router();

router.get('/search', (ctx) => {
  ctx.type = 'html';
  ctx.body = `<p>Results for ${ctx.query.q}</p>`; // VULN: xss
});
