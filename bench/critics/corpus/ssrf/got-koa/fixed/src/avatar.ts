import Router from '@koa/router';
import got from 'got';

export const avatars = new Router();
const IMAGE_HOSTS = ['images.unsplash.com', 'avatars.githubusercontent.com'];

avatars.post('/avatar/import', async (ctx) => {
  const { imageUrl } = ctx.request.body as { imageUrl: string };
  const parsed = new URL(imageUrl);
  if (!IMAGE_HOSTS.includes(parsed.hostname)) ctx.throw(400, 'image host not allowed');
  const image = await got(imageUrl).buffer();
  ctx.body = { bytes: image.length };
});
