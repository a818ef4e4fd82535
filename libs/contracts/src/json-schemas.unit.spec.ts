import { describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { jsonSchemaDocuments } from './json-schema.js';

// schemas/ is what critics in other languages validate against, so it must be exactly what the
// zod contracts produce today.
const SCHEMAS_DIR = fileURLToPath(new URL('../../../schemas', import.meta.url));
const FIX = 'run `npm run schemas` and commit the result';

function committedFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? committedFiles(path) : [relative(SCHEMAS_DIR, path).split(sep).join('/')];
  });
}

describe('schemas/', () => {
  const expected = jsonSchemaDocuments();
  const committed = committedFiles(SCHEMAS_DIR);

  it('holds every document the contracts produce, unchanged', () => {
    const drift = Object.entries(expected).flatMap(([name, doc]) => {
      if (!committed.includes(name)) return [`schemas/${name} is missing: ${FIX}`];
      const onDisk: unknown = JSON.parse(readFileSync(join(SCHEMAS_DIR, name), 'utf8'));
      return isDeepStrictEqual(onDisk, doc) ? [] : [`schemas/${name} differs from its zod contract: ${FIX}`];
    });
    expect(drift).toEqual([]);
  });

  it('holds nothing the contracts no longer produce', () => {
    const stale = committed
      .filter((name) => !Object.hasOwn(expected, name))
      .map((name) => `schemas/${name} is stale: delete it, then ${FIX}`);
    expect(stale).toEqual([]);
  });

  it('gives every document an $id under its file name and the 2020-12 dialect', () => {
    for (const [name, doc] of Object.entries(expected)) {
      expect(doc).toMatchObject({
        $id: `https://refinement-loop.dev/schemas/${name}`,
        $schema: 'https://json-schema.org/draft/2020-12/schema',
      });
    }
  });
});
