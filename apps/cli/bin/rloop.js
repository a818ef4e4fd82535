#!/usr/bin/env node
// The `rloop` command. The TypeScript sources are compiled by `npm ci` (the root prepare script).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('rloop: not built yet — run `npm run build` (or `npm ci`) in the repository first\n');
  process.exit(1);
}
await import(entry.href);
