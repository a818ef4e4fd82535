import { z } from 'zod';
import { DeadLetter, EVENT_CATALOGUE, EVENT_TYPES, EnvelopeBase, StuckReport } from './events.js';
import { Finding } from './finding.js';
import { Letter } from './letter.js';
import { PlanSpec, SubmitReply } from './plan.js';
import { RepoConfig } from './review.js';

/**
 * The JSON Schema documents committed under schemas/, keyed by relative file name. Critics in any
 * language validate against these; a test fails when they drift from the zod contracts.
 */
export function jsonSchemaDocuments(): Record<string, unknown> {
  const docs: Record<string, unknown> = {
    'envelope.schema.json': z.toJSONSchema(EnvelopeBase, { target: 'draft-2020-12' }),
    'finding.schema.json': z.toJSONSchema(Finding, { target: 'draft-2020-12' }),
    'letter.schema.json': z.toJSONSchema(Letter, { target: 'draft-2020-12' }),
    'plan.schema.json': z.toJSONSchema(PlanSpec, { target: 'draft-2020-12', io: 'input' }),
    'submit-reply.schema.json': z.toJSONSchema(SubmitReply, { target: 'draft-2020-12' }),
    'stuck-report.schema.json': z.toJSONSchema(StuckReport, { target: 'draft-2020-12' }),
    'dead-letter.schema.json': z.toJSONSchema(DeadLetter, { target: 'draft-2020-12' }),
    // A repository's .rloop.yaml (editors validate against it with a yaml-language-server comment).
    'rloop-config.schema.json': z.toJSONSchema(RepoConfig, { target: 'draft-2020-12', io: 'input' }),
  };
  for (const type of EVENT_TYPES) {
    docs[`events/${EVENT_CATALOGUE[type].token}.schema.json`] = z.toJSONSchema(EVENT_CATALOGUE[type].schema, {
      target: 'draft-2020-12',
    });
  }
  for (const [name, doc] of Object.entries(docs)) {
    docs[name] = { $id: `https://refinement-loop.dev/schemas/${name}`, ...(doc as object) };
  }
  return docs;
}
