const fs = require('fs');
const path = require('path');

const BUILD = path.resolve(__dirname, '..', 'build');
const target = path.resolve(BUILD, process.argv[2] || '.');
const rel = path.relative(BUILD, target);
if (rel.startsWith('..') || path.isAbsolute(rel)) {
  console.error('refusing to delete outside build/');
  process.exit(1);
}
fs.rmSync(target, { recursive: true, force: true });
