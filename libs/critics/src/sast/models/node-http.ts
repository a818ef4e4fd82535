import type { FrameworkModel } from './types.js';

/** Node's http/https/http2 servers: the request object of `createServer((req, res) => …)` and `server.on('request', …)`. */
export const nodeHttpModel: FrameworkModel = {
  id: 'node:http',
  description:
    "IncomingMessage (url, headers, body chunks from req.on('data') and for await), createServer and 'request' handlers.",
  entryHint: /createServer|IncomingMessage/,
  requests: [{ flavor: 'http', origin: 'http', fields: ['url', 'headers'], scalarFields: ['url', 'headers'] }],
  parameters: { types: [{ name: /^IncomingMessage$/, flavor: 'http' }], names: ['incomingRequest'] },
  callbacks: [
    { yields: 'request', method: 'createServer' },
    { yields: 'request', method: 'on', event: /^request$/, route: 'any' },
    { yields: 'body-chunk', method: ['on', 'once', 'addListener'], onRequest: true, event: /^data$/ },
  ],
};
