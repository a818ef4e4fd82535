import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';

const STORE = '/var/lib/attachments';

export function getAttachment(request: FastifyRequest<{ Params: { id: string; file: string } }>, reply: FastifyReply) {
  const { id, file } = request.params;
  const location = join(STORE, id, file);
  return reply.send(createReadStream(location)); // VULN: path-traversal
}
