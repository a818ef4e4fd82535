import type { CheckKind, Flow, Loc, Origin } from './model.js';
import {
  type EngineConfig,
  type EntryResult,
  type SourceAccess,
  type StoredWrite,
  TaintInterpreter,
} from './interp.js';
import { MODELS } from './models/index.js';
import { type Unit, buildUnit, isCodeFile, parseSource } from './project.js';
import { AnalysisCache } from '../repo/cache.js';
import { yieldToEventLoop } from '../repo/files.js';

/** How the engine reads the repository (the checkout's RepoReader, or text in memory for unit specs). */
export interface TaintReader {
  read(file: string): string | null;
  /** A content hash (null when the file is gone or unreadable). */
  hash(file: string): string | null;
  saveIndex(): void;
}

/** A source-to-sink flow in plain data (what the cache stores and the critics turn into findings). */
export interface TaintFlow {
  readonly kind: CheckKind;
  readonly sink: Loc;
  readonly sinkName: string;
  readonly origin: Origin;
  readonly source: Loc;
  readonly via: readonly Loc[];
}

interface EntryRecord {
  /** Content hash of every file the entry's analysis read. */
  readonly deps: Record<string, string>;
  readonly flows: readonly TaintFlow[];
  /** Store fields the analysis wrote input to, and those it read (second-order flows). */
  readonly writes: readonly StoredWrite[];
  readonly reads: readonly string[];
  /** The stored input its reads were analysed with (see storedInputFor): reused only while it is the same. */
  readonly seen: string;
}

/** Per file: its content hash and whether it can start a flow (so unchanged files are not read again). */
interface HintRecord {
  readonly hash: string;
  readonly entry: boolean;
}

/** Bump when the engine's rules change so cached results are not reused. */
export const TAINT_ENGINE_VERSION = 'taint-19';

/**
 * Files that can start a flow: they mention a request, a framework handler, process.env/argv, a
 * browser location, a socket… (each framework model's hint). A superset of what the interpreter
 * treats as a source, checked on the text so that files which cannot start a flow are never parsed
 * (they are still analysed when a flow reaches them through a call). In library mode every file
 * that exports something is an entry too.
 */
const ENTRY_HINT = MODELS.entryHint;
const EXPORTS_HINT = /\bexport\b|module\.exports|\bexports\./;
export interface TaintRunInput {
  readonly reader: TaintReader;
  /** Every file of the repository (repo-relative); code files among them are analysed. */
  readonly files: readonly string[];
  readonly config: EngineConfig;
  readonly cacheDir?: string;
  /** Names the cache file (one per critic). */
  readonly cacheNamespace: string;
  readonly signal?: AbortSignal;
}

export interface TaintRunResult {
  readonly flows: readonly TaintFlow[];
  readonly entries: number;
  readonly analysed: number;
  readonly reused: number;
}

function plain(flow: Flow): TaintFlow {
  return {
    kind: flow.kind,
    sink: flow.sink,
    sinkName: flow.sinkName,
    origin: flow.taint.origin,
    source: flow.taint.source,
    via: flow.taint.via,
  };
}

/**
 * Runs the taint engine over a repository. Each entry file's result is cached with the content
 * hashes of every file its analysis touched; on the next run an entry whose files are unchanged
 * is not re-analysed, so a one-file change re-analyses only the entries that reach that file.
 */
export async function runTaintAnalysis(input: TaintRunInput): Promise<TaintRunResult> {
  const code = input.files.filter(isCodeFile);
  const codeSet = new Set(code);
  const units = new Map<string, Unit | null>();
  const access: SourceAccess = {
    has: (path) => codeSet.has(path),
    unit: (path) => {
      if (units.has(path)) return units.get(path) ?? null;
      const text = codeSet.has(path) ? input.reader.read(path) : null;
      const unit = text === null ? null : buildUnit(path, parseSource(path, text));
      units.set(path, unit);
      return unit;
    },
  };
  const library = input.config.libraryMode === true;
  const hints = AnalysisCache.open<HintRecord>(input.cacheDir, `${input.cacheNamespace}/hints`, TAINT_ENGINE_VERSION, {
    library,
  });
  const cache = AnalysisCache.open<EntryRecord>(input.cacheDir, input.cacheNamespace, TAINT_ENGINE_VERSION, {
    kinds: [...input.config.kinds].sort(),
    origins: [...input.config.origins].sort(),
    library,
  });
  const interpreter = new TaintInterpreter(access, input.config, input.signal);
  const records = new Map<string, EntryRecord>();
  let analysed = 0;
  let reused = 0;
  const analyse = async (file: string, seen: string): Promise<EntryRecord> => {
    const result = interpreter.analyseEntry(file);
    const record = toRecord(result, seen, input.reader);
    cache.set(file, record);
    analysed += 1;
    if (analysed % 20 === 0) await yieldToEventLoop();
    return record;
  };
  // Pass 1: every entry, with no stored input known (or its cached result).
  for (const file of code) {
    input.signal?.throwIfAborted();
    const hash = input.reader.hash(file);
    if (hash === null) continue;
    const hint = hints.get(file);
    const isEntry =
      hint !== undefined && hint.hash === hash ? hint.entry : isEntryText(input.reader.read(file) ?? '', library);
    hints.set(file, hint !== undefined && hint.hash === hash ? hint : { hash, entry: isEntry });
    if (!isEntry) continue;
    const cached = cache.get(file);
    if (
      cached !== undefined &&
      Array.isArray(cached.reads) &&
      Object.entries(cached.deps).every(([dep, depHash]) => input.reader.hash(dep) === depHash)
    ) {
      records.set(file, cached);
      reused += 1;
    } else {
      records.set(file, await analyse(file, ''));
    }
  }
  // Pass 2 (second-order flows): the input every entry wrote to stores, seeded; entries whose reads
  // meet it are analysed again with it (or reused when their cached result already saw the same).
  const writes = allWrites(records);
  if (writes.size > 0) interpreter.seedStores(writes);
  for (const [file, record] of records) {
    const seen = storedInputFor(record.reads, writes);
    if (seen === record.seen) continue;
    input.signal?.throwIfAborted();
    records.set(file, await analyse(file, seen));
  }
  const flows = new Map<string, TaintFlow>();
  for (const record of records.values()) {
    for (const flow of record.flows) {
      const key = `${flow.kind}|${flow.sink.file}|${flow.sink.line}`;
      if (!flows.has(key)) flows.set(key, flow);
    }
  }
  cache.save();
  hints.save();
  input.reader.saveIndex();
  return { flows: [...flows.values()], entries: records.size, analysed, reused };
}

function isEntryText(text: string, library: boolean): boolean {
  return ENTRY_HINT.test(text) || (library && EXPORTS_HINT.test(text));
}

function toRecord(result: EntryResult, seen: string, reader: TaintReader): EntryRecord {
  const deps: Record<string, string> = {};
  for (const dep of result.deps) deps[dep] = reader.hash(dep) ?? 'missing';
  return {
    deps,
    flows: result.flows.map(plain),
    writes: [...result.writes.values()],
    reads: [...result.reads].sort(),
    seen,
  };
}

/** Every store field written with input, by key; the first entry (in file order) that wrote one names it. */
function allWrites(records: ReadonlyMap<string, EntryRecord>): Map<string, StoredWrite> {
  const writes = new Map<string, StoredWrite>();
  for (const record of records.values()) {
    for (const write of record.writes) {
      const key = `${write.store}.${write.field}`;
      if (!writes.has(key)) writes.set(key, write);
    }
  }
  return writes;
}

/** The stored input an entry's reads can see (a field's own writes and its store's whole-object writes), as a stable string. */
function storedInputFor(reads: readonly string[], writes: ReadonlyMap<string, StoredWrite>): string {
  if (writes.size === 0) return '';
  const seen: StoredWrite[] = [];
  for (const read of reads) {
    const store = read.slice(0, read.indexOf('.'));
    for (const key of [read, `${store}.*`]) {
      const write = writes.get(key);
      if (write !== undefined && !seen.includes(write)) seen.push(write);
    }
  }
  return seen.length === 0
    ? ''
    : JSON.stringify(
        seen.map((w) => [w.store, w.field, w.source.file, w.source.line, w.write.file, w.write.line, w.clean]).sort(),
      );
}
