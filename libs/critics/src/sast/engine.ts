import type { CheckKind, Flow, Loc, Origin } from './model.js';
import { type EngineConfig, type SourceAccess, TaintInterpreter } from './interp.js';
import { type Unit, buildUnit, isCodeFile, parseSource } from './project.js';
import { AnalysisCache } from '../repo/cache.js';
import type { RepoReader } from '../repo/checkout.js';
import { yieldToEventLoop } from '../repo/files.js';

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
}

/** Per file: its content hash and whether it can start a flow (so unchanged files are not read again). */
interface HintRecord {
  readonly hash: string;
  readonly entry: boolean;
}

/** Bump when the engine's rules change so cached results are not reused. */
export const TAINT_ENGINE_VERSION = 'taint-18';

/**
 * Files that can start a flow: they mention a request, a framework handler, process.env/argv or a
 * browser location. A superset of what the interpreter treats as a source, checked on the text so
 * that files which cannot start a flow are never parsed (they are still analysed when a flow
 * reaches them through a call).
 */
const ENTRY_HINT =
  /\b(req|request|ctx|event|evt|Query|Mutation|resolvers?)\b|process\.(env|argv)|\blocation\b|document\.|window\.|@(Body|Query|Param|Header|Req|Request|Args|Cookie|Uploaded)\w*\s*\(|Request\b|Context\b|Event\b|APIGateway|IncomingMessage|createServer|searchParams|\.(get|post|put|patch|delete|all|use|route|on)\s*\(/;

export interface TaintRunInput {
  readonly reader: RepoReader;
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
  return { kind: flow.kind, sink: flow.sink, sinkName: flow.sinkName, origin: flow.taint.origin, source: flow.taint.source, via: flow.taint.via };
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
  const hints = AnalysisCache.open<HintRecord>(input.cacheDir, `${input.cacheNamespace}/hints`, TAINT_ENGINE_VERSION, {});
  const cache = AnalysisCache.open<EntryRecord>(input.cacheDir, input.cacheNamespace, TAINT_ENGINE_VERSION, {
    kinds: [...input.config.kinds].sort(),
    origins: [...input.config.origins].sort(),
  });
  const interpreter = new TaintInterpreter(access, input.config, input.signal);
  const flows = new Map<string, TaintFlow>();
  let entries = 0;
  let analysed = 0;
  let reused = 0;
  for (const file of code) {
    input.signal?.throwIfAborted();
    const hash = input.reader.hash(file);
    if (hash === null) continue;
    const hint = hints.get(file);
    const isEntry = hint !== undefined && hint.hash === hash ? hint.entry : ENTRY_HINT.test(input.reader.read(file) ?? '');
    hints.set(file, hint !== undefined && hint.hash === hash ? hint : { hash, entry: isEntry });
    if (!isEntry) continue;
    entries += 1;
    const cached = cache.get(file);
    let record: EntryRecord;
    if (cached !== undefined && Object.entries(cached.deps).every(([dep, hash]) => input.reader.hash(dep) === hash)) {
      record = cached;
      reused += 1;
    } else {
      const result = interpreter.analyseEntry(file);
      const deps: Record<string, string> = {};
      for (const dep of result.deps) deps[dep] = input.reader.hash(dep) ?? 'missing';
      record = { deps, flows: result.flows.map(plain) };
      cache.set(file, record);
      analysed += 1;
      if (analysed % 20 === 0) await yieldToEventLoop();
    }
    for (const flow of record.flows) {
      const key = `${flow.kind}|${flow.sink.file}|${flow.sink.line}`;
      if (!flows.has(key)) flows.set(key, flow);
    }
  }
  cache.save();
  hints.save();
  input.reader.saveIndex();
  return { flows: [...flows.values()], entries, analysed, reused };
}
