import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Finding } from '@rloop/contracts';
import { inputValidationCritic, runCritic, sastScannerCritic } from '../index.js';
import { type FixtureRepo, fixtureRepo, lineOf } from '../__fixtures__/repo.js';

const VULNERABLE: Record<string, string> = {
  'src/db.ts': `import { Pool } from 'pg';
export const pool = new Pool();
export function findUser(name: string) {
  return pool.query("SELECT * FROM users WHERE name = '" + name + "'"); // SQL-CROSS
}
`,
  'src/routes.ts': `import express from 'express';
import { exec } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { findUser } from './db.js';
import { pool } from './db.js';

const app = express();

function byEmail(email: string) {
  return pool.query(\`SELECT * FROM users WHERE email = '\${email}'\`); // SQL-HELPER
}

app.get('/users', async (req, res) => {
  res.json(await findUser(req.query.name as string)); // SOURCE-CROSS
});

app.post('/login', async (req, res) => {
  res.json(await byEmail(req.body.email));
});

app.get('/sort', async (req, res) => {
  const { column } = req.query as { column: string };
  res.json(await pool.query(\`SELECT * FROM items ORDER BY \${column}\`)); // SQL-DESTRUCT
});

app.get('/ping', (req, res) => {
  exec('ping -c 1 ' + req.query.host, () => res.end()); // CMD
});

app.post('/calc', (req, res) => {
  res.json({ value: eval(req.body.expr) }); // CODE
});

app.get('/file', (req, res) => {
  res.end(fs.readFileSync(path.join('/srv/files', req.params.name))); // PATH
});

app.get('/go', (req, res) => {
  res.redirect(req.query.to as string); // REDIRECT
});

app.get('/hi', (req, res) => {
  res.send('<h1>Hi ' + req.query.name + '</h1>'); // XSS
});

app.post('/users', async (req, res) => {
  await User.create(req.body); // MASS
  res.status(201).end();
});
`,
};

const FIXED: Record<string, string> = {
  'src/db.ts': `import { Pool } from 'pg';
export const pool = new Pool();
export function findUser(name: string) {
  return pool.query('SELECT * FROM users WHERE name = $1', [name]);
}
`,
  'src/routes.ts': `import express from 'express';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { findUser, pool } from './db.js';

const app = express();
const COLUMNS = ['id', 'name'];
const NewUser = z.object({ name: z.string() });

app.get('/users', async (req, res) => {
  res.json(await findUser(String(req.query.name)));
});

app.get('/sort', async (req, res) => {
  const { column } = req.query as { column: string };
  if (!COLUMNS.includes(column)) return res.status(400).end();
  res.json(await pool.query(\`SELECT * FROM items ORDER BY \${column}\`));
});

app.get('/ping', (req, res) => {
  execFile('ping', ['-c', '1', String(req.query.host)], () => res.end());
});

app.post('/calc', (req, res) => {
  res.json({ value: Number(req.body.a) + Number(req.body.b) });
});

app.get('/file', (req, res) => {
  res.end(fs.readFileSync(path.join('/srv/files', path.basename(req.params.name))));
});

app.get('/go', (req, res) => {
  const to = String(req.query.to);
  res.redirect(to.startsWith('/') && !to.startsWith('//') ? to : '/');
});

app.get('/hi', (req, res) => {
  res.type('text/plain').send('Hi ' + req.query.name);
});

app.post('/users', async (req, res) => {
  await User.create(NewUser.parse(req.body));
  res.status(201).end();
});
`,
};

const context = (dir: string, files: readonly string[], cacheDir?: string) => ({
  repoDir: dir,
  commit: '0'.repeat(40),
  files,
  phase: 'final_sweep' as const,
  ...(cacheDir === undefined ? {} : { cacheDir }),
});

async function sast(
  dir: string,
  files: readonly string[],
  cacheDir?: string,
): Promise<{ findings: readonly Finding[]; notes: readonly string[] }> {
  const result = await runCritic(sastScannerCritic(), context(dir, files, cacheDir));
  if (result.status !== 'reported') throw new Error(`${result.reason}: ${result.message}`);
  return result;
}

describe('security/sast-scanner', () => {
  let vulnerable: FixtureRepo;
  let fixed: FixtureRepo;
  beforeAll(() => {
    vulnerable = fixtureRepo(VULNERABLE);
    fixed = fixtureRepo(FIXED);
  });
  afterAll(() => {
    vulnerable.remove();
    fixed.remove();
  });

  it('finds each sink with the right type and line, including flows through helpers, files and destructuring', async () => {
    const { findings } = await sast(vulnerable.dir, Object.keys(VULNERABLE));
    const routes = VULNERABLE['src/routes.ts'] ?? '';
    const at = (type: string, file: string, marker: string): Finding | undefined =>
      findings.find(
        (f) =>
          f.finding_type === type &&
          f.file === file &&
          f.line_range.start === lineOf(file === 'src/db.ts' ? (VULNERABLE['src/db.ts'] ?? '') : routes, marker),
      );
    expect(at('sast/sql-injection', 'src/db.ts', 'SQL-CROSS')?.related_locations).toContainEqual(
      expect.objectContaining({
        file: 'src/routes.ts',
        line_range: { start: lineOf(routes, 'SOURCE-CROSS'), end: lineOf(routes, 'SOURCE-CROSS') },
      }),
    );
    expect(at('sast/sql-injection', 'src/routes.ts', 'SQL-HELPER')).toBeDefined();
    expect(at('sast/sql-injection', 'src/routes.ts', 'SQL-DESTRUCT')).toBeDefined();
    expect(at('sast/command-injection', 'src/routes.ts', 'CMD')).toBeDefined();
    expect(at('sast/code-injection', 'src/routes.ts', 'CODE')).toBeDefined();
    expect(at('sast/path-traversal', 'src/routes.ts', 'PATH')).toBeDefined();
    expect(at('sast/open-redirect', 'src/routes.ts', 'REDIRECT')).toBeDefined();
    expect(at('sast/xss', 'src/routes.ts', 'XSS')).toBeDefined();
    expect(findings.every((f) => f.severity === 'critical' && f.category === 'security')).toBe(true);
    expect(findings).toHaveLength(8);
  });

  it('stays quiet on the fixed twin (parameters, allowlists, execFile, basename, escaping)', async () => {
    const { findings } = await sast(fixed.dir, Object.keys(FIXED));
    expect(findings.map((f) => `${f.finding_type} ${f.file}:${f.line_range.start}`)).toEqual([]);
  });

  it('tells a command line through a shell from the environment the command runs with', async () => {
    const files = {
      'src/run.ts': `import { spawn } from 'node:child_process';
export function runShell(command: string, env: Record<string, string>) {
  return spawn(command, { env, shell: '/bin/sh' });
}
export function listing(dir: string) {
  return spawn('ls', [dir], { shell: true }); // ARGV
}
`,
      'src/main.ts': `import { listing, runShell } from './run.js';
runShell('npm test', { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/' });
listing(process.argv[2] ?? '.');
`,
    };
    const repo = fixtureRepo(files);
    try {
      const { findings } = await sast(repo.dir, Object.keys(files));
      expect(findings.map((f) => `${f.finding_type} ${f.file}:${f.line_range.start}`)).toEqual([
        `sast/command-injection src/run.ts:${lineOf(files['src/run.ts'], 'ARGV')}`,
      ]);
    } finally {
      repo.remove();
    }
  });

  it('reports only flows that touch the files under review', async () => {
    const { findings } = await sast(vulnerable.dir, ['src/db.ts']);
    expect(findings.map((f) => f.file)).toEqual(['src/db.ts']);
  });

  it('re-analyses only the entry files whose dependencies changed', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'rloop-sast-cache-'));
    const repo = fixtureRepo({
      ...VULNERABLE,
      'src/other.ts': `export function handler(req: any) { return eval(req.query.x); }\n`,
    });
    try {
      const files = [...Object.keys(VULNERABLE), 'src/other.ts'];
      const first = await sast(repo.dir, files, cacheDir);
      expect(first.notes.join(' ')).toMatch(/2 analysed, 0 reused/);
      repo.write('src/other.ts', `export function handler(req: any) {\n  return eval(req.query.y);\n}\n`);
      const second = await sast(repo.dir, files, cacheDir);
      expect(second.notes.join(' ')).toMatch(/1 analysed, 1 reused/);
      expect(second.findings.filter((f) => f.file === 'src/other.ts').map((f) => f.line_range.start)).toEqual([2]);
      expect(second.findings.length).toBe(first.findings.length);
    } finally {
      repo.remove();
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});

describe('security/input-validation-checker', () => {
  it('flags whole request bodies stored as is and stays quiet once a schema picks the fields', async () => {
    const vulnerable = fixtureRepo(VULNERABLE);
    const fixed = fixtureRepo(FIXED);
    try {
      const run = async (dir: string): Promise<readonly Finding[]> => {
        const result = await runCritic(inputValidationCritic(), context(dir, ['src/db.ts', 'src/routes.ts']));
        if (result.status !== 'reported') throw new Error(result.message);
        return result.findings;
      };
      const found = await run(vulnerable.dir);
      expect(found).toContainEqual(
        expect.objectContaining({
          finding_type: 'validation/mass-assignment',
          line_range: expect.objectContaining({ start: lineOf(VULNERABLE['src/routes.ts'] ?? '', 'MASS') }),
        }),
      );
      expect(found).toContainEqual(
        expect.objectContaining({ finding_type: 'validation/unvalidated-input', severity: 'medium' }),
      );
      expect((await run(fixed.dir)).filter((f) => f.finding_type === 'validation/mass-assignment')).toEqual([]);
    } finally {
      vulnerable.remove();
      fixed.remove();
    }
  });
});
