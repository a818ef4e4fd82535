import type { FrameworkModel } from './types.js';

/** Hono: `c.req.query()/param()/json()/valid()`, `c.html(…)`. A validator middleware's `c.req.valid()` is validated input. */
export const honoModel: FrameworkModel = {
  id: 'hono',
  description:
    'c.req input methods (query, queries, param, header, json, parseBody, valid), HonoRequest parameters, c.html.',
  requests: [
    {
      flavor: 'http',
      origin: 'http',
      fields: [],
      methods: ['query', 'queries', 'param', 'header', 'json', 'parseBody', 'valid'],
      wholeMethods: ['parseBody'],
      validMethods: ['valid'],
    },
  ],
  parameters: { types: [{ name: /^HonoRequest$/, flavor: 'http' }] },
  sinks: [{ kind: 'xss', call: { method: 'html', root: /^(c|ctx)$/ }, args: [0] }],
};
