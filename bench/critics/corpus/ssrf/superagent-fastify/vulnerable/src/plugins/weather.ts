import type { FastifyInstance } from 'fastify';
import superagent from 'superagent';

export default async function weather(app: FastifyInstance) {
  app.get('/weather', async (request) => {
    const { provider } = request.query as { provider: string };
    const answer = await superagent.get(provider).query({ city: 'Berlin' }); // VULN: ssrf
    return answer.body;
  });
}
