import Router from '@koa/router';
import escapeHtml from 'escape-html';

export const router = new Router();

router.get('/search', (ctx) => {
  ctx.type = 'html';
  ctx.body = `<p>Results for ${escapeHtml(String(ctx.query.q))}</p>`;
});
