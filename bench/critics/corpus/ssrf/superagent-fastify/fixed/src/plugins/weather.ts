import type { FastifyInstance } from 'fastify';
import superagent from 'superagent';

const PROVIDERS: Record<string, string> = {
  openmeteo: 'https://api.open-meteo.com/v1/forecast',
  dwd: 'https://api.brightsky.dev/weather',
};

export default async function weather(app: FastifyInstance) {
  app.get('/weather', async (request, reply) => {
    const { provider } = request.query as { provider: string };
    if (!Object.hasOwn(PROVIDERS, provider)) return reply.code(400).send({ error: 'unknown provider' });
    const answer = await superagent.get(PROVIDERS[provider]).query({ city: 'Berlin' });
    return answer.body;
  });
}
