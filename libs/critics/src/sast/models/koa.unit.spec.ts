import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('koa model', [
  {
    name: 'ctx input into HTML written to ctx.body and a redirect',
    vulnerable: {
      'src/app.ts': `import Koa from 'koa';
const app = new Koa();
app.use(async (ctx) => {
  if (ctx.path === '/go') return ctx.redirect(String(ctx.query.to)); // SINK redirect
  ctx.body = '<p>Hello ' + ctx.request.body.name + '</p>'; // SINK xss
});
`,
    },
    safe: {
      'src/app.ts': `import Koa from 'koa';
const app = new Koa();
const NAME = /^[A-Za-z ]{1,40}$/;
app.use(async (ctx) => {
  const name = String(ctx.request.body.name);
  if (!NAME.test(name)) ctx.throw(400, 'bad name');
  ctx.body = '<p>Hello ' + name + '</p>';
  ctx.body = { greeting: 'Hello ' + ctx.query.other };
});
`,
    },
  },
]);
