import Handlebars from 'handlebars';
import nunjucks from 'nunjucks';
import type { Context } from 'koa';

export async function preview(ctx: Context) {
  const { layout, body } = ctx.request.body as { layout: string; body: string };
  const header = Handlebars.compile(layout)({}); // VULN: code-injection
  const main = nunjucks.renderString(body, { user: ctx.state.user }); // VULN: code-injection
  ctx.body = { header, main };
}
