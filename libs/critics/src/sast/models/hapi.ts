import type { FrameworkModel } from './types.js';

/** Hapi: `request.payload/query/params/headers/state`, handlers in `server.route({ handler })`. */
export const hapiModel: FrameworkModel = {
  id: 'hapi',
  description: 'request.payload (the body), request.state (cookies), route objects with a handler.',
  requests: [{ flavor: 'http', origin: 'http', fields: ['payload', 'state'], wholeFields: ['payload'] }],
};
