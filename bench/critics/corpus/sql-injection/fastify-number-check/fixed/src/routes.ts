import type { FastifyInstance } from 'fastify';

export async function routes(app: FastifyInstance) {
  app.get('/invoices/:year', async (request, reply) => {
    const { year } = request.params as { year: string };
    const numeric = Number.parseInt(year, 10);
    if (!Number.isInteger(numeric)) return reply.code(400).send({ error: 'bad year' });
    return app.pg.query('SELECT * FROM invoices WHERE extract(year from issued) = ' + numeric);
  });
}
