import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('fastify model', [
  {
    name: 'request fields and the raw request into SQL; reply.send of text is not HTML',
    vulnerable: {
      'src/routes.ts': `import type { FastifyInstance, FastifyRequest } from 'fastify';
import { db } from './db';
export default async function routes(app: FastifyInstance) {
  app.get('/items', async (request: FastifyRequest, reply) => {
    const { sort } = request.query as { sort: string };
    await db.query('SELECT * FROM items ORDER BY ' + sort); // SINK sql
    await db.query('SELECT ' + request.raw.url); // SINK sql
    return reply.send('sorted by ' + sort);
  });
}
`,
      'src/db.ts': `import { Pool } from 'pg';\nexport const db = new Pool();\n`,
    },
    safe: {
      'src/routes.ts': `import type { FastifyInstance } from 'fastify';
import { db } from './db';
export default async function routes(app: FastifyInstance) {
  app.route({
    method: 'GET',
    url: '/items',
    schema: { querystring: { type: 'object', properties: { owner: { type: 'string' } } } },
    handler: async (request) => db.query('SELECT * FROM items WHERE owner = $1', [(request.query as { owner: string }).owner]),
  });
}
`,
      'src/db.ts': `import { Pool } from 'pg';\nexport const db = new Pool();\n`,
    },
    options: { kinds: ['sql', 'xss'] },
  },
]);
