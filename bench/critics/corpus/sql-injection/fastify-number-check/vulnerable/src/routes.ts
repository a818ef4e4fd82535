import type { FastifyInstance } from 'fastify';

export async function routes(app: FastifyInstance) {
  app.get('/invoices/:year', async (request) => {
    const { year } = request.params as { year: string };
    return app.pg.query('SELECT * FROM invoices WHERE extract(year from issued) = ' + year); // VULN: sql-injection
  });
}
