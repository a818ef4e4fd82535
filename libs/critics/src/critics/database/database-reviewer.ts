/**
 * The `specialized/database-reviewer` critic: gathers every migration of the repository through the
 * critic context, reads their facts and turns the rules' problems into findings. Only the wiring
 * lives here (the one thing the registry imports); reading migrations is in `sql-events.ts` and
 * `module-events.ts`, the rules in `migration-rules.ts`.
 */
import type { CriticContext, CriticDefinition, FindingDraft } from '../../critic.js';
import { defineCritic, draftFinding } from '../../plumbing/define.js';
import {
  type MigrationFacts,
  isDownFile,
  isMigrationFile,
  migrationFacts,
  pairedDownFile,
  reviewMigrations,
} from './migration-rules.js';

/** `specialized/database-reviewer`: reviews SQL and knex/kysely migrations. */
export function databaseReviewerCritic(options: { readonly timeoutMs?: number } = {}): CriticDefinition {
  return defineCritic({
    id: 'specialized/database-reviewer',
    evidence: 'pattern',
    description:
      'Migration review (SQL, knex, kysely): destructive changes without a down migration, NOT NULL columns without defaults on existing tables, foreign keys without an index.',
    triggers: ['**/migrations/**', '**/schema*', '**/*.sql'],
    timeoutMs: options.timeoutMs ?? 120_000,
    covers: isMigrationFile,
    async run(context: CriticContext): Promise<readonly FindingDraft[]> {
      const reader = context.reader;
      // Every migration of the repository: a change is judged against the tables earlier ones made.
      const files = [...new Set([...(await context.repoFiles()), ...context.files])].filter(isMigrationFile).sort();
      const fileSet = new Set(files);
      const facts: MigrationFacts[] = [];
      for (const file of files) {
        context.signal.throwIfAborted();
        if (isDownFile(file)) {
          // A down migration is reviewed as the way back of its up migration (read with it below).
          reader.read(file);
          continue;
        }
        const text = reader.read(file);
        if (text === null) continue;
        const paired = pairedDownFile(file);
        facts.push(
          migrationFacts(
            file,
            text,
            paired !== null && fileSet.has(paired) && (reader.read(paired) ?? '').trim() !== '',
          ),
        );
      }
      return reviewMigrations(facts, new Set(context.files)).map((p) =>
        draftFinding({
          severity: p.severity,
          score: p.score,
          category: p.category,
          finding_type: p.type,
          file: p.file,
          line_range: { start: p.line, end: p.line },
          title: p.title,
          current_behaviour: p.current,
          expected_behaviour: p.expected,
          observable_test_conditions: p.observable,
          forbidden_in_test: [
            'testing against an empty database only (the failure needs existing rows)',
            'mocking the database instead of running the migration',
          ],
        }),
      );
    },
  });
}
