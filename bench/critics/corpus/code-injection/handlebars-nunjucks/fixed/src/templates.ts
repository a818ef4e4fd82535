import Handlebars from 'handlebars';
import nunjucks from 'nunjucks';
import type { Context } from 'koa';

const header = Handlebars.compile('<h1>{{title}}</h1>');
const env = new nunjucks.Environment(new nunjucks.FileSystemLoader('templates'), { autoescape: true });

export async function preview(ctx: Context) {
  const { title, body } = ctx.request.body as { title: string; body: string };
  ctx.body = { header: header({ title }), main: env.render('main.njk', { body, user: ctx.state.user }) };
}
