import Router from '@koa/router';
import got from 'got';

export const avatars = new Router();

avatars.post('/avatar/import', async (ctx) => {
  const { imageUrl } = ctx.request.body as { imageUrl: string };
  const image = await got(imageUrl).buffer(); // VULN: ssrf
  ctx.body = { bytes: image.length };
});
