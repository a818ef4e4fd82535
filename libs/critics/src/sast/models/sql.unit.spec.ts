import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('sql model', [
  {
    name: 'query, raw, $queryRawUnsafe, sqlite all and a built where() string',
    vulnerable: {
      'src/repo.ts': `import knex from 'knex';
import { PrismaClient } from '@prisma/client';
import Database from 'better-sqlite3';
const db = knex({ client: 'pg' });
const prisma = new PrismaClient();
const sqlite = new Database('app.db');
export async function search(req: { query: { q: string; col: string } }) {
  await db.raw('SELECT * FROM t WHERE name = ' + req.query.q); // SINK sql
  await prisma.$queryRawUnsafe(\`SELECT * FROM t WHERE name = '\${req.query.q}'\`); // SINK sql
  sqlite.prepare('SELECT * FROM t WHERE c = ' + req.query.q); // SINK sql
  await db('t').where(\`\${req.query.col} = 1\`); // SINK sql
}
`,
    },
    safe: {
      'src/repo.ts': `import knex from 'knex';
import { PrismaClient } from '@prisma/client';
const db = knex({ client: 'pg' });
const prisma = new PrismaClient();
export async function search(req: { query: { q: string } }) {
  await db('t').where('name', req.query.q);
  await db.raw('SELECT * FROM t WHERE name = ?', [req.query.q]);
  await prisma.$queryRaw\`SELECT * FROM t WHERE name = \${req.query.q}\`;
  const cache = new Map<string, string>();
  cache.get(req.query.q);
}
`,
    },
  },
]);
