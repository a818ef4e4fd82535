import type { FrameworkModel } from './types.js';

/** The Fetch API's Request (Deno, Bun, Cloudflare Workers, route handlers) and URLSearchParams. */
export const fetchApiModel: FrameworkModel = {
  id: 'fetch-api',
  description: 'request.url/headers, await request.json()/text()/formData(), searchParams.get/getAll.',
  requests: [
    {
      flavor: 'http',
      origin: 'http',
      fields: ['url', 'headers', 'href', 'search', 'pathname', 'searchParams'],
      methods: ['json', 'text', 'formData', 'arrayBuffer', 'blob', 'getAll'],
      wholeMethods: ['json', 'formData'],
      scalarMethods: ['text'],
    },
  ],
};
