import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_COVERAGE_FILES, type RecordedCoverage } from '@rloop/contracts';
import { CoverageReportError, RepoReader, lineRanges, readCoverageReport } from '@rloop/critics';

/** Serialised size a recording may take in an event (the bus's messages are bounded); past it the rest is truncated. */
const MAX_RECORDING_BYTES = 256 * 1024;
/** Uncovered ranges kept per file (RecordedCoverage's limit). */
const MAX_RANGES = 1000;

/** A fresh directory for one test run's V8 coverage (NODE_V8_COVERAGE), under the implementer's scratch space. */
export function coverageDirFor(workRoot: string): string {
  const root = join(workRoot, 'coverage');
  mkdirSync(root, { recursive: true });
  return mkdtempSync(join(root, 'run-'));
}

/**
 * What the run's Node.js processes executed in the worktree, as RecordedCoverage: V8's byte ranges
 * turned into lines against the worktree's files (read inside it, never through a link out), files
 * under node_modules left out, sizes bounded for the bus. Null when the run wrote no coverage (its
 * test command runs no Node.js, or ran none of the worktree's files). The directory is removed.
 */
export function recordV8Coverage(coverageDir: string, worktree: string): RecordedCoverage | null {
  try {
    if (!existsSync(coverageDir) || readdirSync(coverageDir).length === 0) return null;
    const reader = new RepoReader(worktree);
    let report;
    try {
      report = readCoverageReport(coverageDir, [worktree, realpathSync(worktree)], (file) => reader.read(file));
    } catch (error) {
      if (error instanceof CoverageReportError) return null;
      throw error;
    }
    if (report.files.size === 0) return null;
    const files: RecordedCoverage['files'] = [];
    let bytes = 0;
    let truncated = false;
    for (const [file, lines] of [...report.files].sort(([a], [b]) => a.localeCompare(b))) {
      const uncovered = lineRanges(lines.uncovered)
        .slice(0, MAX_RANGES)
        .map(([start, end]) => ({ start, end }));
      const entry = { file, executable: lines.executable.length, uncovered };
      bytes += JSON.stringify(entry).length;
      if (files.length >= MAX_COVERAGE_FILES || bytes > MAX_RECORDING_BYTES) {
        truncated = true;
        break;
      }
      files.push(entry);
    }
    return { format: report.format, files, truncated };
  } finally {
    rmSync(coverageDir, { recursive: true, force: true });
  }
}
