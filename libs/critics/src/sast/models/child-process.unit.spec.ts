import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('node:child_process model', [
  {
    name: 'exec, execSync, spawn with shell: true, sh -c, execa and cross-spawn with input',
    vulnerable: {
      'src/tools.ts': `import { exec, execSync, spawn } from 'node:child_process';
import { execa, execaCommand } from 'execa';
import crossSpawn from 'cross-spawn';
export function run(req: { query: { host: string; tool: string } }) {
  exec('ping -c 1 ' + req.query.host); // SINK command
  execSync(\`dig \${req.query.host}\`); // SINK command
  spawn('ping', ['-c', '1', req.query.host], { shell: true }); // SINK command
  spawn('sh', ['-c', 'nslookup ' + req.query.host]); // SINK command
  execaCommand('whois ' + req.query.host); // SINK command
  execa(req.query.tool, ['--version']); // SINK command
  crossSpawn.sync(req.query.tool, []); // SINK command
}
`,
    },
    safe: {
      'src/tools.ts': `import { execFile, spawn } from 'node:child_process';
import { execa } from 'execa';
export function run(req: { query: { host: string } }) {
  execFile('ping', ['-c', '1', String(req.query.host)]);
  spawn('dig', [String(req.query.host)], { env: { PATH: '/usr/bin' } });
  execa('whois', [String(req.query.host)]);
}
`,
    },
  },
  {
    name: "exec without an import (require('shelljs/global'))",
    vulnerable: {
      'scripts/deploy.js': `require('shelljs/global');
module.exports = (req) => exec('deploy ' + req.body.env); // SINK command
`,
    },
  },
]);
