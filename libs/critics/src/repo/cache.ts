import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from './files.js';

interface CacheFile<T> {
  readonly format: 1;
  readonly version: string;
  readonly config: string;
  readonly entries: Record<string, T>;
}

/**
 * Per-critic analysis results keyed by whatever identifies their inputs (usually a file path, with
 * the content hashes the result depends on stored in the value). One JSON file per critic under
 * the cache directory; a different critic version or configuration starts from empty. Entries
 * not used in a run are dropped when it is saved, so the file does not grow without bound.
 */
export class AnalysisCache<T> {
  private readonly used = new Map<string, T>();
  private dirty = false;

  private constructor(
    private readonly path: string | null,
    private readonly version: string,
    private readonly config: string,
    private readonly previous: Readonly<Record<string, T>>,
  ) {}

  /** Opens the cache of one critic; without a cacheDir it is an in-memory cache that saves nothing. */
  static open<T>(cacheDir: string | undefined, namespace: string, version: string, config: unknown): AnalysisCache<T> {
    const configHash = sha256(JSON.stringify(config)).slice(0, 16);
    if (cacheDir === undefined) return new AnalysisCache<T>(null, version, configHash, {});
    const path = join(cacheDir, `${namespace.replace(/[^a-z0-9-]+/gi, '_')}.json`);
    let previous: Record<string, T> = {};
    try {
      const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<CacheFile<T>>;
      if (
        parsed.format === 1 &&
        parsed.version === version &&
        parsed.config === configHash &&
        typeof parsed.entries === 'object' &&
        parsed.entries !== null
      ) {
        previous = parsed.entries;
      }
    } catch {
      // No cache yet, or an unreadable one: this run starts from scratch and writes a fresh file.
      previous = {};
    }
    return new AnalysisCache<T>(path, version, configHash, previous);
  }

  get(key: string): T | undefined {
    const hit = this.used.get(key) ?? (Object.hasOwn(this.previous, key) ? this.previous[key] : undefined);
    if (hit !== undefined) this.used.set(key, hit);
    return hit;
  }

  set(key: string, value: T): void {
    const previous = Object.hasOwn(this.previous, key) ? this.previous[key] : undefined;
    if (previous !== value) this.dirty = true;
    this.used.set(key, value);
  }

  /** Writes the entries used in this run (atomically: a crash leaves the old file); nothing when nothing changed. */
  save(): void {
    if (this.path === null) return;
    const dropped = Object.keys(this.previous).some((key) => !this.used.has(key));
    if (!this.dirty && !dropped) return;
    const file: CacheFile<T> = {
      format: 1,
      version: this.version,
      config: this.config,
      entries: Object.fromEntries(this.used),
    };
    mkdirSync(join(this.path, '..'), { recursive: true });
    const temp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(file));
    renameSync(temp, this.path);
  }
}
