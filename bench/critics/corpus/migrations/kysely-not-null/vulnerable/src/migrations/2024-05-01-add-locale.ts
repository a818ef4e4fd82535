import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('person')
    .addColumn('locale', 'varchar(10)', (col) => col.notNull()) // VULN: db/not-null-without-default
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('person').dropColumn('locale').execute();
}
