import { createReadStream } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';

const STORE = '/var/lib/attachments';

export function getAttachment(request: FastifyRequest<{ Params: { id: string; file: string } }>, reply: FastifyReply) {
  const { id, file } = request.params;
  const location = resolve(join(STORE, id, file));
  const rel = relative(STORE, location);
  if (rel.startsWith('..') || isAbsolute(rel)) return reply.code(400).send({ error: 'invalid path' });
  return reply.send(createReadStream(location));
}
