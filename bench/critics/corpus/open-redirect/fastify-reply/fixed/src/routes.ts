import type { FastifyInstance } from 'fastify';

const PARTNERS = new Set(['https://partner.example/', 'https://docs.example/']);

export default async function (fastify: FastifyInstance) {
  fastify.get('/out', async (request, reply) => {
    const { url } = request.query as { url: string };
    if (!PARTNERS.has(url)) return reply.code(400).send();
    return reply.redirect(url);
  });
}
