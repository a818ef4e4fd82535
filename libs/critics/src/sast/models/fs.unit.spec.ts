import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('node:fs model', [
  {
    name: 'fs, fs/promises and fs-extra path arguments from a route parameter',
    vulnerable: {
      'src/files.ts': `import fs from 'node:fs';
import { readFile } from 'node:fs/promises';
import fse from 'fs-extra';
import express from 'express';
const app = express();
app.get('/files/:name', async (req, res) => {
  const name = req.params.name;
  res.send(await readFile('uploads/' + name)); // SINK path
  fs.unlinkSync('tmp/' + name); // SINK path
  await fse.copy('uploads/' + name, 'backup/' + name); // SINK path
});
`,
    },
    safe: {
      'src/files.ts': `import fs from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import express from 'express';
const app = express();
app.get('/files/:name', async (req, res) => {
  const name = path.basename(req.params.name);
  res.send(await readFile(path.join('uploads', name)));
  fs.unlinkSync(path.join('tmp', name));
});
`,
    },
  },
  {
    name: 'an fs-looking method on something else (no fs import: not a sink)',
    options: { kinds: ['path'] },
    vulnerable: {
      'src/cache.ts': `export function handler(req: { query: { key: string } }, cache: { open(key: string): void }) {
  cache.open(req.query.key);
}
`,
    },
  },
]);
