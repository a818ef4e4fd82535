import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('node:process model', [
  {
    name: 'the command line and the environment reaching a shell, process.exit ending a path',
    vulnerable: {
      'scripts/backup.js': `const { execSync } = require('child_process');
const target = process.argv[2];
execSync('tar czf backup.tgz ' + target); // SINK command
execSync(\`pg_dump \${process.env.DATABASE_NAME}\`); // SINK command
`,
    },
    safe: {
      'scripts/backup.js': `const { execFileSync } = require('child_process');
const target = process.argv[2];
if (!/^[a-z0-9_-]+$/.test(target)) {
  console.error('bad target');
  process.exit(1);
}
execFileSync('tar', ['czf', 'backup.tgz', target]);
`,
    },
  },
]);
