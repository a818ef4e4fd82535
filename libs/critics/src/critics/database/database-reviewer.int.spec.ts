import { describe, expect, it } from '@jest/globals';
import { databaseReviewerCritic, runCritic } from '../../index.js';
import { fixtureRepo } from '../../__fixtures__/repo.js';

async function review(files: Record<string, string>, reviewed?: readonly string[]) {
  const repo = fixtureRepo(files);
  try {
    const result = await runCritic(databaseReviewerCritic(), {
      repoDir: repo.dir,
      commit: '0'.repeat(40),
      files: reviewed ?? Object.keys(files),
      phase: 'final_sweep',
    });
    if (result.status !== 'reported') throw new Error(result.message);
    return result.findings.map((f) => `${f.finding_type} ${f.file}:${f.line_range.start} ${f.severity}`).sort();
  } finally {
    repo.remove();
  }
}

describe('specialized/database-reviewer', () => {
  it('flags destructive SQL without a down migration, NOT NULL without default, and unindexed foreign keys', async () => {
    expect(
      await review({
        'db/migrations/001_init.sql': 'CREATE TABLE users (id serial PRIMARY KEY, name varchar(200));\n',
        'db/migrations/002_orders.sql':
          'CREATE TABLE orders (\n  id serial PRIMARY KEY,\n  user_id int REFERENCES users(id)\n);\n',
        'db/migrations/003_cleanup.sql':
          'ALTER TABLE users ADD COLUMN tier text NOT NULL;\nALTER TABLE users DROP COLUMN name;\nTRUNCATE audit;\n',
      }),
    ).toEqual([
      'db/drop-column db/migrations/003_cleanup.sql:2 critical',
      'db/not-null-without-default db/migrations/003_cleanup.sql:1 critical',
      'db/truncate db/migrations/003_cleanup.sql:3 critical',
      'db/unindexed-foreign-key db/migrations/002_orders.sql:3 medium',
    ]);
  });

  it('is quiet when the migration has a way back, a default and an index', async () => {
    expect(
      await review({
        'migrations/001_init.sql':
          'CREATE TABLE users (id serial PRIMARY KEY, name varchar(200));\nCREATE TABLE orders (id serial PRIMARY KEY, user_id int REFERENCES users(id));\nCREATE INDEX orders_user_idx ON orders (user_id);\n',
        'migrations/002_cleanup.up.sql':
          "ALTER TABLE users ADD COLUMN tier text NOT NULL DEFAULT 'free';\nALTER TABLE users DROP COLUMN name;\n",
        'migrations/002_cleanup.down.sql':
          'ALTER TABLE users ADD COLUMN name varchar(200);\nALTER TABLE users DROP COLUMN tier;\n',
      }),
    ).toEqual([]);
  });

  it('reads knex and kysely migrations, and only reports the migrations under review', async () => {
    const files = {
      'migrations/20240101_knex.js':
        "exports.up = (knex) => knex.schema.alterTable('contacts', (table) => {\n  table.dropColumn('fax');\n  table.string('locale').notNullable();\n});\nexports.down = async () => {};\n",
      'src/migrations/2024-02-01-kysely.ts':
        "import type { Kysely } from 'kysely';\nexport async function up(db: Kysely<unknown>) {\n  await db.schema.alterTable('person').addColumn('team_id', 'integer', (c) => c.references('team.id')).execute();\n}\nexport async function down(db: Kysely<unknown>) {\n  await db.schema.alterTable('person').dropColumn('team_id').execute();\n}\n",
    };
    expect(await review(files)).toEqual([
      'db/drop-column migrations/20240101_knex.js:2 critical',
      'db/not-null-without-default migrations/20240101_knex.js:3 critical',
      'db/unindexed-foreign-key src/migrations/2024-02-01-kysely.ts:3 medium',
    ]);
    expect(await review(files, ['src/migrations/2024-02-01-kysely.ts'])).toEqual([
      'db/unindexed-foreign-key src/migrations/2024-02-01-kysely.ts:3 medium',
    ]);
  });
});
