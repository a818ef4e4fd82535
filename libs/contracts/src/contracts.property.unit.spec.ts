import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { type z } from 'zod';
import { ValidationError } from './errors.js';
import { DeadLetter, EVENT_CATALOGUE, EVENT_TYPES } from './events.js';
import { Finding } from './finding.js';
import { jsonSchemaDocuments } from './json-schema.js';
import {
  MUTATION_KINDS,
  type MutationKind,
  REPAIRS,
  SchemaDocument,
  mutationArbitrary,
  mutationSites,
  valueArbitrary,
} from './json-schema.arbitraries.js';
import { Letter } from './letter.js';
import { parseEvent, toIssues } from './parse.js';
import { PlanSpec, SubmitReply } from './plan.js';

// Every contract is checked against values generated from its committed JSON Schema (plus the
// hand-written repairs for zod refinements): valid values must be accepted and survive the wire,
// and every single mutation that breaks the schema must be rejected where it was made.

const NUM_RUNS = 50;
const documents = jsonSchemaDocuments();

interface Target {
  readonly name: string;
  readonly document: SchemaDocument;
  readonly schema: z.ZodType;
  readonly isEvent: boolean;
}

function documentFor(file: string): SchemaDocument {
  return new SchemaDocument(file, documents[file]);
}

const TARGETS: readonly Target[] = [
  ...EVENT_TYPES.map((type) => ({
    name: type,
    document: documentFor(`events/${EVENT_CATALOGUE[type].token}.schema.json`),
    schema: EVENT_CATALOGUE[type].schema,
    isEvent: true,
  })),
  { name: 'Finding', document: documentFor('finding.schema.json'), schema: Finding, isEvent: false },
  { name: 'Letter', document: documentFor('letter.schema.json'), schema: Letter, isEvent: false },
  { name: 'PlanSpec', document: documentFor('plan.schema.json'), schema: PlanSpec, isEvent: false },
  { name: 'SubmitReply', document: documentFor('submit-reply.schema.json'), schema: SubmitReply, isEvent: false },
  { name: 'DeadLetter', document: documentFor('dead-letter.schema.json'), schema: DeadLetter, isEvent: false },
];

/** The value as it arrives on the other side of NATS or PostgreSQL's jsonb. */
function overTheWire(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

/** Issue paths as ValidationError reports them (`(root)`, `data.findings.0.score`). */
function issuePath(path: readonly (string | number)[]): string {
  return path.length === 0 ? '(root)' : path.map(String).join('.');
}

describe.each(TARGETS)('$name', ({ name, document, schema, isEvent }) => {
  const valid = valueArbitrary(document);

  it('accepts what it produces, and the parsed value survives the wire unchanged', () => {
    fc.assert(
      fc.property(valid, (value) => {
        const first = schema.safeParse(value);
        expect(first.error?.issues ?? []).toEqual([]);
        const reparsed = schema.safeParse(overTheWire(first.data));
        expect(reparsed.error?.issues ?? []).toEqual([]);
        expect(reparsed.data).toEqual(first.data);
        if (isEvent) {
          const result = parseEvent(overTheWire(value));
          expect(result.ok ? result.event : result.error.issues).toEqual(first.data);
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('rejects every single-change mutation, naming the place it was made', () => {
    const mutated = valid.chain((value) => mutationArbitrary(document, value, { reserved: EVENT_TYPES }));
    fc.assert(
      fc.property(mutated, ({ kind, expectedPath, value }) => {
        const expected = issuePath(expectedPath);
        if (isEvent) {
          const result = parseEvent(overTheWire(value));
          expect(result.ok).toBe(false);
          if (result.ok) return;
          expect(result.error).toBeInstanceOf(ValidationError);
          expect(result.error.code).toMatch(/^CONTRACT\./);
          expect(result.error.retryable).toBe(false);
          expect({ kind, paths: result.error.issues.map((i) => i.path) }).toEqual({
            kind,
            paths: expect.arrayContaining([expected]),
          });
        } else {
          const result = schema.safeParse(overTheWire(value));
          expect(result.success).toBe(false);
          const paths = result.error === undefined ? [] : toIssues(result.error).map((i) => i.path);
          expect({ kind, paths }).toEqual({ kind, paths: expect.arrayContaining([expected]) });
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it(`has mutation sites for ${name}'s envelope and refinements`, () => {
    const [sample] = fc.sample(valid, { numRuns: 1, seed: 42 });
    const kinds = new Set(mutationSites(document, sample).map((s) => s.kind));
    expect(kinds.has('drop_required')).toBe(true);
    if (isEvent) expect(kinds.has('wrong_const')).toBe(true);
  });
});

describe('the generators themselves', () => {
  it('cover every kind of mutation across the contracts', () => {
    const seen = new Set<MutationKind>();
    for (const { document } of TARGETS) {
      for (const value of fc.sample(valueArbitrary(document), { numRuns: 5, seed: 7 })) {
        for (const s of mutationSites(document, value)) seen.add(s.kind);
      }
    }
    expect([...seen].sort()).toEqual([...MUTATION_KINDS].sort());
  });

  it('repair only types the committed schemas define', () => {
    const defined = new Set(
      Object.values(documents).flatMap((doc) => Object.keys((doc as { $defs?: object }).$defs ?? {})),
    );
    expect(Object.keys(REPAIRS).filter((id) => !defined.has(id))).toEqual([]);
  });

  it('refuse JSON Schema keywords they do not understand', () => {
    expect(() => new SchemaDocument('x', { type: 'integer', exclusiveMinimum: 0 })).toThrow(/exclusiveMinimum/);
  });

  it('leave out the properties zod fills in from a default', () => {
    const plan = documentFor('plan.schema.json');
    const [value] = fc.sample(valueArbitrary(plan), { numRuns: 1, seed: 1 });
    const dropped = mutationSites(plan, value)
      .filter((s) => s.kind === 'drop_required')
      .map((s) => issuePath(s.path));
    expect(dropped).not.toContain('description');
    expect(dropped).not.toContain('implementer');
    expect(dropped).toEqual(expect.arrayContaining(['slug', 'title', 'repo']));
  });
});
