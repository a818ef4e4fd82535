import Router from '@koa/router';
import { exec } from 'child_process';
import { promisify } from 'util';

const execAsync = promisify(exec);
export const router = new Router();
const DOMAIN = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i;

router.post('/whois', async (ctx) => {
  const { domain } = ctx.request.body as { domain: string };
  if (!DOMAIN.test(domain)) {
    ctx.status = 400;
    return;
  }
  const { stdout } = await execAsync('whois ' + domain);
  ctx.body = { result: stdout };
});
