import type { FastifyInstance } from 'fastify';

export default async function (fastify: FastifyInstance) {
  fastify.get('/out', async (request, reply) => {
    const { url } = request.query as { url: string };
    return reply.redirect(url); // VULN: open-redirect
  });
}
