import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { RloopError, describeError } from '@rloop/contracts';
import { type OsvAffected, OsvRecord, baseEcosystem } from './osv.js';
import { ECOSYSTEMS, type Ecosystem, normalizePackageName } from './versions.js';
import { ZipFile } from './zip.js';

/** An OSV export that cannot be used: missing, not a directory or zip, or damaged. */
export class AdvisoriesUnavailableError extends RloopError {
  constructor(message: string, options: { readonly cause?: unknown } = {}) {
    super('ADVISORIES.UNAVAILABLE', message, options);
  }
}

/**
 * What the critic keeps of a record: what a finding says (id, aliases, summary, severity, a link)
 * and when it was modified or withdrawn — not the long details, which would hold hundreds of MB
 * for npm's export.
 */
export type AdvisoryRecord = Pick<
  OsvRecord,
  'id' | 'modified' | 'withdrawn' | 'aliases' | 'summary' | 'severity' | 'database_specific'
> & { readonly url: string | null };

/** What the critic keeps of a record for one package it affects. */
export interface IndexedAdvisory {
  readonly record: AdvisoryRecord;
  /** The record's `affected` entries for this package (there may be several, one per range kind). */
  readonly entries: readonly OsvAffected[];
}

/** Counts and dates of one export, for the critic's notes. */
export interface ExportSummary {
  readonly source: string;
  /** Records read, per ecosystem we audit (a record naming several counts in each). */
  readonly records: Readonly<Partial<Record<Ecosystem, number>>>;
  /** Records that were withdrawn (kept out of matching at review time, counted here). */
  readonly withdrawn: number;
  /** Files in the export that are not OSV records we can read (counted, named in part). */
  readonly unreadable: number;
  readonly unreadableExamples: readonly string[];
  /** The newest `modified` time of any record: how fresh the export is. */
  readonly newestModified: string | null;
}

/** The records of an OSV export, indexed by ecosystem and package name. */
export class AdvisoryDatabase {
  constructor(
    private readonly index: ReadonlyMap<string, readonly IndexedAdvisory[]>,
    readonly summary: ExportSummary,
  ) {}

  /** Advisories naming this package (withdrawn ones included: the caller judges them at its review time). */
  advisoriesFor(ecosystem: Ecosystem, name: string): readonly IndexedAdvisory[] {
    return this.index.get(key(ecosystem, normalizePackageName(ecosystem, name))) ?? [];
  }

  /** Whether the export holds any record of this ecosystem. */
  covers(ecosystem: Ecosystem): boolean {
    return (this.summary.records[ecosystem] ?? 0) > 0;
  }

  /**
   * Loads an export: a zip (`all.zip` as osv.dev publishes it), or a directory holding OSV JSON
   * files and such zips at any depth (what `rloop advisories update` writes: `<ecosystem>/all.zip`).
   * Loaded once per process while the files stay the same (size and time), since the npm export
   * holds a few hundred thousand records.
   */
  static load(path: string): AdvisoryDatabase {
    const files = exportFiles(path);
    const signature = files.map((f) => `${f.path}\0${f.size}\0${f.mtimeMs}`).join('\n');
    const cached = MEMO.get(path);
    if (cached !== undefined && cached.signature === signature) return cached.database;
    const database = build(path, files);
    MEMO.set(path, { signature, database });
    return database;
  }

  /** Reads one zip export whole, without the memo (to check a download before it replaces an export). */
  static readZip(path: string): AdvisoryDatabase {
    const size = statSync(path).size;
    return build(path, [{ path, size, mtimeMs: 0, kind: 'zip' }]);
  }

  /** Builds a database from records already in memory (tests, other hosts). */
  static fromRecords(source: string, records: readonly unknown[]): AdvisoryDatabase {
    const builder = new Builder(source);
    records.forEach((record, i) => builder.add(`#${i + 1}`, record));
    return builder.done();
  }
}

const MEMO = new Map<string, { readonly signature: string; readonly database: AdvisoryDatabase }>();

function key(ecosystem: Ecosystem, name: string): string {
  return `${ecosystem}\u0000${name}`;
}

interface ExportFile {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly kind: 'json' | 'zip';
}

function exportFiles(path: string): ExportFile[] {
  let stat;
  try {
    stat = statSync(path);
  } catch (error) {
    throw new AdvisoriesUnavailableError(
      `the OSV export ${path} does not exist (${describeError(error)}): run \`rloop advisories update\`, or point RLOOP_ADVISORIES at an export`,
      { cause: error },
    );
  }
  if (stat.isFile()) {
    if (!path.endsWith('.zip') && !path.endsWith('.json'))
      throw new AdvisoriesUnavailableError(`the OSV export ${path} is neither a directory, a .zip nor a .json file`);
    return [{ path, size: stat.size, mtimeMs: stat.mtimeMs, kind: path.endsWith('.zip') ? 'zip' : 'json' }];
  }
  if (!stat.isDirectory())
    throw new AdvisoriesUnavailableError(`the OSV export ${path} is neither a directory nor a file`);
  const found: ExportFile[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      // Hidden files are a download in progress (`rloop advisories update`) or an editor's.
      if (entry.name.startsWith('.')) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && (entry.name.endsWith('.json') || entry.name.endsWith('.zip'))) {
        const s = statSync(full);
        found.push({
          path: full,
          size: s.size,
          mtimeMs: s.mtimeMs,
          kind: entry.name.endsWith('.zip') ? 'zip' : 'json',
        });
      }
    }
  };
  walk(path);
  if (found.length === 0)
    throw new AdvisoriesUnavailableError(
      `the OSV export ${path} holds no .json or .zip files: run \`rloop advisories update\` to download one`,
    );
  return found;
}

function build(root: string, files: readonly ExportFile[]): AdvisoryDatabase {
  const builder = new Builder(root);
  for (const file of files) {
    const name = relative(root, file.path) || file.path;
    if (file.kind === 'json') {
      builder.addText(name, readFileSync(file.path, 'utf8'));
      continue;
    }
    let zip: ZipFile;
    try {
      zip = ZipFile.open(file.path);
    } catch (error) {
      throw new AdvisoriesUnavailableError(
        `the OSV export ${file.path} cannot be read: ${describeError(error)} (download it again with \`rloop advisories update\`)`,
        { cause: error },
      );
    }
    try {
      for (const entry of zip.entries) {
        if (!entry.name.endsWith('.json')) continue;
        let text: string;
        try {
          text = zip.read(entry).toString('utf8');
        } catch (error) {
          throw new AdvisoriesUnavailableError(
            `the OSV export ${file.path} is damaged: ${describeError(error)} (download it again with \`rloop advisories update\`)`,
            { cause: error },
          );
        }
        builder.addText(`${name}:${entry.name}`, text);
      }
    } finally {
      zip.close();
    }
  }
  return builder.done();
}

/** An affected entry without what no finding uses (Go's lists of affected symbols can be long). */
function compactEntry(entry: OsvAffected): OsvAffected {
  const keep = (
    bag: Record<string, unknown> | undefined,
    keys: readonly string[],
  ): Record<string, unknown> | undefined => {
    if (bag === undefined) return undefined;
    const kept = Object.fromEntries(keys.flatMap((k) => (bag[k] === undefined ? [] : [[k, bag[k]]])));
    return Object.keys(kept).length === 0 ? undefined : kept;
  };
  const ecosystemSpecific = keep(entry.ecosystem_specific, ['severity']);
  const databaseSpecific = keep(entry.database_specific, ['severity', 'informational']);
  return {
    ...(entry.package === undefined ? {} : { package: entry.package }),
    ranges: entry.ranges.map((r) => ({ type: r.type, events: r.events })),
    versions: entry.versions,
    severity: entry.severity,
    ...(ecosystemSpecific === undefined ? {} : { ecosystem_specific: ecosystemSpecific }),
    ...(databaseSpecific === undefined ? {} : { database_specific: databaseSpecific }),
  };
}

/** Collects records into the index; records it cannot read are counted, not fatal. */
class Builder {
  private readonly index = new Map<string, IndexedAdvisory[]>();
  private readonly records: Partial<Record<Ecosystem, number>> = {};
  private withdrawn = 0;
  private unreadable = 0;
  private readonly unreadableExamples: string[] = [];
  private newest: string | null = null;
  private newestTime = Number.NEGATIVE_INFINITY;

  constructor(private readonly source: string) {}

  addText(name: string, text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // A stray non-JSON file in a directory export: counted and named in the notes.
      this.skip(name);
      return;
    }
    // A file may hold one record or a list of them.
    if (Array.isArray(value)) value.forEach((item, i) => this.add(`${name}[${i}]`, item));
    else this.add(name, value);
  }

  add(name: string, value: unknown): void {
    const parsed = OsvRecord.safeParse(value);
    if (!parsed.success) {
      this.skip(name);
      return;
    }
    const full = parsed.data;
    const severity = full.database_specific?.['severity'];
    const record: AdvisoryRecord = {
      id: full.id,
      modified: full.modified,
      ...(full.withdrawn === undefined ? {} : { withdrawn: full.withdrawn }),
      aliases: full.aliases,
      ...(full.summary === undefined ? {} : { summary: full.summary.slice(0, 300) }),
      severity: full.severity,
      ...(severity === undefined ? {} : { database_specific: { severity } }),
      url: (full.references.find((r) => r.type === 'ADVISORY') ?? full.references[0])?.url ?? null,
    };
    if (record.withdrawn !== undefined) this.withdrawn += 1;
    const modified = Date.parse(record.modified);
    if (!Number.isNaN(modified) && modified > this.newestTime) {
      this.newestTime = modified;
      this.newest = record.modified;
    }
    const byPackage = new Map<string, OsvAffected[]>();
    const ecosystems = new Set<Ecosystem>();
    for (const entry of full.affected) {
      const ecosystem = ECOSYSTEMS.find((e) => e === baseEcosystem(entry.package?.ecosystem ?? ''));
      if (ecosystem === undefined || entry.package === undefined) continue;
      ecosystems.add(ecosystem);
      const k = key(ecosystem, normalizePackageName(ecosystem, entry.package.name));
      byPackage.set(k, [...(byPackage.get(k) ?? []), compactEntry(entry)]);
    }
    for (const ecosystem of ecosystems) this.records[ecosystem] = (this.records[ecosystem] ?? 0) + 1;
    for (const [k, entries] of byPackage) {
      const list = this.index.get(k);
      if (list === undefined) this.index.set(k, [{ record, entries }]);
      else list.push({ record, entries });
    }
  }

  private skip(name: string): void {
    this.unreadable += 1;
    if (this.unreadableExamples.length < 5) this.unreadableExamples.push(name);
  }

  done(): AdvisoryDatabase {
    return new AdvisoryDatabase(this.index, {
      source: this.source,
      records: { ...this.records },
      withdrawn: this.withdrawn,
      unreadable: this.unreadable,
      unreadableExamples: [...this.unreadableExamples],
      newestModified: this.newest,
    });
  }
}
