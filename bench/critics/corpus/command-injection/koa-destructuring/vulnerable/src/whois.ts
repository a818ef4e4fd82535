import Router from '@koa/router';
import { exec } from 'child_process';
import { promisify } from 'util';

const execAsync = promisify(exec);
export const router = new Router();

router.post('/whois', async (ctx) => {
  const { domain } = ctx.request.body as { domain: string };
  const { stdout } = await execAsync('whois ' + domain); // VULN: command-injection
  ctx.body = { result: stdout };
});
