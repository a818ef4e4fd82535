import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('fetch-api model', [
  {
    name: 'await request.json() and URLSearchParams of request.url reaching a shell',
    vulnerable: {
      'src/handler.ts': `import { execSync } from 'node:child_process';
export async function POST(request: Request) {
  const body = await request.json();
  execSync('convert ' + body.file); // SINK command
  const q = new URL(request.url).searchParams.get('q');
  execSync('grep ' + q + ' index.txt'); // SINK command
  return new Response('ok');
}
`,
    },
    safe: {
      'src/handler.ts': `import { execFileSync } from 'node:child_process';
export async function POST(request: Request) {
  const body = await request.json();
  execFileSync('convert', [String(body.file)]);
  return new Response('ok');
}
`,
    },
  },
]);
