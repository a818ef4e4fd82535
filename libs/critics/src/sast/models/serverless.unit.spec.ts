import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('serverless model', [
  {
    name: "an API Gateway event and any field of an exported handler's queue event",
    vulnerable: {
      'src/api.ts': `import { pool } from './db';
export const getUser = async (event: { pathParameters: { id: string } }) => {
  return pool.query('SELECT * FROM users WHERE id = ' + event.pathParameters.id); // SINK sql
};
`,
      'src/worker.ts': `import { execSync } from 'node:child_process';
export const handler = async (sqsEvent: { Records: { body: string }[] }) => {
  for (const record of sqsEvent.Records) execSync('convert ' + JSON.parse(record.body).file + ' out.png'); // SINK command
};
`,
      'src/db.ts': `export const pool: any = {};\n`,
    },
    safe: {
      'src/api.ts': `import { pool } from './db';
export const getUser = async (event: { pathParameters: { id: string } }) => {
  return pool.query('SELECT * FROM users WHERE id = $1', [event.pathParameters.id]);
};
`,
      'src/worker.ts': `import { execFileSync } from 'node:child_process';
export const handler = async (sqsEvent: { Records: { body: string }[] }) => {
  for (const record of sqsEvent.Records) execFileSync('convert', [String(JSON.parse(record.body).file), 'out.png']);
};
`,
      'src/db.ts': `export const pool: any = {};\n`,
    },
  },
]);
