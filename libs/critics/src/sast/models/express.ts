import type { FrameworkModel } from './types.js';

/** Validation middleware registered with a route: celebrate, express-validator, zod/joi middlewares. */
const VALIDATORS = /valid|celebrate|checkSchema|\bbody\(|\bquery\(|\bparam\(|\bcheck\(/i;

/**
 * Express (and Connect-style routers: Router(), express-promise-router, polka): request fields and
 * methods that carry client input, and route registration (`app.get('/x', handler)`, `app.use(mw)`).
 */
export const expressModel: FrameworkModel = {
  id: 'express',
  description:
    'req.query/body/params/headers/cookies/files/url/path/hostname, req.get/header/param, handlers registered with app/router get/post/…/use/route.',
  entryHint: /\b(req|request)\b|\.(get|post|put|patch|delete|all|use|route)\s*\(/,
  requests: [
    {
      flavor: 'http',
      origin: 'http',
      fields: [
        'query',
        'body',
        'params',
        'headers',
        'cookies',
        'signedCookies',
        'url',
        'originalUrl',
        'path',
        'hostname',
        'host',
        'files',
        'file',
        'rawBody',
      ],
      scalarFields: ['params', 'headers', 'url', 'originalUrl', 'path', 'hostname', 'host'],
      wholeFields: ['body', 'query', 'rawBody'],
      methods: ['get', 'header', 'param', 'query', 'cookie'],
      scalarMethods: ['get', 'header', 'param'],
    },
  ],
  parameters: { types: [{ name: /^(Request|ExpressRequest)$/, flavor: 'http' }], names: ['req', 'request'] },
  callbacks: [
    {
      yields: 'request',
      method: ['get', 'post', 'put', 'patch', 'delete', 'del', 'all', 'options', 'head', 'any'],
      route: 'path',
      validators: VALIDATORS,
    },
    { yields: 'request', method: ['use', 'route'], route: 'any', validators: VALIDATORS },
  ],
};
