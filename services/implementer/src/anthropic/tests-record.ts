import { z } from 'zod';
import { TestsWritten } from '@rloop/contracts';
import { RecordInvalidError } from '../errors.js';
import { readRecord, writeRecord } from '../git/records.js';

/** Where the red tests written for a letter are kept (beside the fix records, in the user's repository). */
export function testsRecordRef(slug: string, letterId: string): string {
  return `refs/rloop/${slug}/tests/${letterId}`;
}

const TestsRecord = z.object({
  tests_written: TestsWritten.shape.data,
  red_tests: z.array(
    z.object({ file: z.string().min(1), finding_ids: z.array(z.string()), name: z.string(), content: z.string() }),
  ),
});
export type TestsRecord = z.infer<typeof TestsRecord>;

/**
 * The red tests of a letter as the test writer left them, or null. A redelivered fix request
 * reuses them: the letter's tests are written (and paid for) once, and TestsWritten is the same.
 */
export async function readTestsRecord(repoPath: string, slug: string, letterId: string): Promise<TestsRecord | null> {
  const ref = testsRecordRef(slug, letterId);
  const stored = await readRecord(repoPath, ref);
  if (stored === null) return null;
  const parsed = TestsRecord.safeParse(stored);
  if (!parsed.success) throw new RecordInvalidError(ref, parsed.error.message);
  return parsed.data;
}

export async function writeTestsRecord(
  repoPath: string,
  slug: string,
  letterId: string,
  record: TestsRecord,
): Promise<void> {
  await writeRecord(repoPath, testsRecordRef(slug, letterId), TestsRecord.parse(record));
}
