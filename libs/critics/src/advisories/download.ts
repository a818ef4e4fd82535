import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { RloopError, describeError } from '@rloop/contracts';
import { AdvisoryDatabase } from './database.js';
import { ECOSYSTEMS, type Ecosystem } from './versions.js';

/** Where osv.dev publishes one zip per ecosystem (`<base>/<ecosystem>/all.zip`). */
export const OSV_EXPORT_BASE_URL = 'https://osv-vulnerabilities.storage.googleapis.com';

/** The export could not be downloaded (no route, an HTTP error, a damaged file). */
export class AdvisoriesDownloadError extends RloopError {
  constructor(message: string, options: { readonly cause?: unknown; readonly retryable?: boolean } = {}) {
    super('ADVISORIES.DOWNLOAD_FAILED', message, options);
  }
}

/** What a failed fetch says underneath its "fetch failed": the system's code (ECONNREFUSED, ENOTFOUND) and message. */
function networkCause(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth += 1) {
    if (typeof current === 'object') {
      const { code, message, errors } = current as { code?: unknown; message?: unknown; errors?: unknown };
      if (typeof code === 'string' && !parts.includes(code)) parts.push(code);
      if (typeof message === 'string' && message !== '' && message !== 'fetch failed') parts.push(message);
      // Node reports "connection refused on every address" as an AggregateError of the attempts.
      if (Array.isArray(errors) && errors.length > 0) {
        current = errors[0];
        continue;
      }
      current = (current as { cause?: unknown }).cause;
    } else {
      parts.push(describeError(current));
      break;
    }
  }
  return parts.length === 0 ? describeError(error) : [...new Set(parts)].join(': ');
}

/** An ecosystem as the user typed it (`pypi`, `cargo`, `go`) → OSV's spelling, or null. */
export function ecosystemNamed(name: string): Ecosystem | null {
  const lower = name.toLowerCase();
  if (lower === 'cargo' || lower === 'crates' || lower === 'rust') return 'crates.io';
  if (lower === 'golang') return 'Go';
  return ECOSYSTEMS.find((e) => e.toLowerCase() === lower) ?? null;
}

export interface UpdateAdvisoriesOptions {
  readonly ecosystem: Ecosystem;
  /** The export directory (RLOOP_ADVISORIES): the zip goes to `<dir>/<ecosystem>/all.zip`. */
  readonly dir: string;
  /** A mirror of osv.dev's bucket (default OSV_EXPORT_BASE_URL). */
  readonly baseUrl?: string;
  readonly signal?: AbortSignal;
  /** The HTTP client (default: the global fetch). */
  readonly fetch?: typeof fetch;
}

export interface UpdateAdvisoriesResult {
  readonly url: string;
  readonly file: string;
  readonly bytes: number;
  readonly records: number;
  readonly newestModified: string | null;
}

/**
 * Downloads one ecosystem's `all.zip` into the export directory: streamed to a hidden temporary
 * file, read back whole (every entry's CRC, every record parsed) and only then moved over the old
 * export, so a failed or truncated download never replaces a good one.
 */
export async function updateAdvisories(options: UpdateAdvisoriesOptions): Promise<UpdateAdvisoriesResult> {
  const url = `${(options.baseUrl ?? OSV_EXPORT_BASE_URL).replace(/\/+$/, '')}/${encodeURIComponent(options.ecosystem)}/all.zip`;
  const target = join(options.dir, options.ecosystem, 'all.zip');
  const partial = join(options.dir, options.ecosystem, `.all.zip.${process.pid}.partial`);
  const fetchImpl = options.fetch ?? fetch;
  const elsewhere = `download ${url} where it can be reached and copy it to ${target}, or pass --url with a mirror of osv.dev's export bucket`;
  let response: Response;
  try {
    response = await fetchImpl(url, options.signal === undefined ? {} : { signal: options.signal });
  } catch (error) {
    const cause = networkCause(error);
    throw new AdvisoriesDownloadError(
      `could not reach ${url} (${cause}): this machine has no route to it; ${elsewhere}`,
      { cause: error, retryable: true },
    );
  }
  if (!response.ok || response.body === null) {
    throw new AdvisoriesDownloadError(
      `${url} answered ${response.status} ${response.statusText}${response.status === 404 ? ` (is ${options.ecosystem} an ecosystem osv.dev exports?)` : ''}; ${elsewhere}`,
      { retryable: response.status >= 500 },
    );
  }
  await mkdir(join(options.dir, options.ecosystem), { recursive: true });
  try {
    await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), createWriteStream(partial));
    const bytes = (await stat(partial)).size;
    let database: AdvisoryDatabase;
    try {
      database = AdvisoryDatabase.readZip(partial);
    } catch (error) {
      throw new AdvisoriesDownloadError(
        `${url} did not give a readable export (${describeError(error)}); the previous export, if any, is kept`,
        { cause: error, retryable: true },
      );
    }
    const records = database.summary.records[options.ecosystem] ?? 0;
    if (records === 0)
      throw new AdvisoriesDownloadError(
        `${url} holds no ${options.ecosystem} records; the previous export, if any, is kept`,
      );
    await rename(partial, target);
    return { url, file: target, bytes, records, newestModified: database.summary.newestModified };
  } catch (error) {
    await rm(partial, { force: true });
    if (error instanceof AdvisoriesDownloadError) throw error;
    throw new AdvisoriesDownloadError(`downloading ${url} failed: ${describeError(error)}; ${elsewhere}`, {
      cause: error,
      retryable: true,
    });
  }
}
