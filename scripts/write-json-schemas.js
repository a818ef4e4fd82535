// Regenerates schemas/*.json from the zod contracts: `npm run schemas` after a contract change
// (a test fails while the committed files differ from what the contracts produce).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonSchemaDocuments } from '@rloop/contracts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'schemas');
const docs = jsonSchemaDocuments();
for (const [name, doc] of Object.entries(docs)) {
  const path = join(root, name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(doc, null, 2)}\n`);
}
process.stdout.write(`wrote ${Object.keys(docs).length} schema files to ${root}\n`);
