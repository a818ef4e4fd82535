import type { FrameworkModel } from './types.js';

/** Koa: the context object (`ctx.query`, `ctx.request.body`), HTML written to `ctx.body`. */
export const koaModel: FrameworkModel = {
  id: 'koa',
  description:
    'ctx and ctx.request/ctx.req input fields, Context/ParameterizedContext parameters, ctx.body = HTML, ctx.throw.',
  entryHint: /\bctx\b|Context\b/,
  requests: [
    {
      flavor: 'http',
      origin: 'http',
      fields: ['href', 'search', 'pathname', 'originalUrl'],
      scalarFields: ['href', 'search', 'pathname'],
      nestedFields: ['request', 'req'],
    },
  ],
  parameters: { types: [{ name: /^(Context|ParameterizedContext)$/, flavor: 'http' }], names: ['ctx'] },
  // ctx.throw(400, '…') throws an HttpError: the code after it runs only when the check passed.
  terminators: [/^(ctx|this|context)\.throw$/],
  assignmentSinks: [
    { kind: 'xss', property: 'body', receiver: /^(ctx|this|context|ctx\.response|this\.response)$/, htmlOnly: true },
  ],
};
