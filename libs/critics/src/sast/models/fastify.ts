import type { FrameworkModel } from './types.js';

/** Fastify: request fields, the raw Node request, `fastify.route({ handler, schema })` (a schema validates). */
export const fastifyModel: FrameworkModel = {
  id: 'fastify',
  description:
    'request.body/query/params/headers and request.raw, FastifyRequest parameters, route objects with a schema.',
  requests: [{ flavor: 'http', origin: 'http', fields: ['body', 'query', 'params', 'headers'], nestedFields: ['raw'] }],
  parameters: { types: [{ name: /^FastifyRequest$/, flavor: 'http' }] },
};
