import type { CriticContext, CriticDefinition, FindingDraft } from '../critic.js';
import { defineCritic, draftFinding } from '../plumbing/define.js';
import { AnalysisCache } from '../repo/cache.js';
import { yieldToEventLoop } from '../repo/files.js';
import { isCodeFile } from '../sast/project.js';
import {
  type Clone,
  DEFAULT_DETECT_OPTIONS,
  type DetectOptions,
  type TokenStream,
  detectClones,
  sortClones,
  tokenize,
} from './detect.js';
import type { ShapeUnit } from './syntax.js';

// dup-13: type-only text dropped, code lines counted, a body needed for renamed copies, shape families.
const DUPLICATES_VERSION = 'dup-13';

interface Region {
  readonly file: string;
  readonly startLine: number;
  readonly endLine: number;
}

interface CacheEntry {
  readonly hash: string;
  readonly stream?: TokenStream;
  /** Generated or minified: not compared. */
  readonly generated?: boolean;
  /** For the `#clones` entry: the files' hashes when the clones were computed, and the clones. */
  readonly files?: Readonly<Record<string, string>>;
  readonly clones?: readonly Clone[];
}

/** Files that are generated or minified are not worth deduplicating (very long average lines). */
function looksGenerated(text: string): boolean {
  const lines = text.split('\n').length;
  return text.length / Math.max(1, lines) > 400;
}

/**
 * Turns clone pairs into findings on the files under review: a pair with both sides under review
 * is `duplicate/within-change` (reported on the later copy), a pair with one side under review is
 * `duplicate/against-repo` (reported on the reviewed side), and a pair entirely outside the review
 * is not reported. Several copies of one region become one finding listing every other copy.
 */
export function clonesToDrafts(clones: readonly Clone[], review: ReadonlySet<string>): FindingDraft[] {
  interface Group {
    region: Region;
    within: boolean;
    others: Region[];
    tokens: number;
    lines: number;
    identical: number;
  }
  const pieces: Group[] = [];
  for (const clone of clones) {
    const aIn = review.has(clone.a.file);
    const bIn = review.has(clone.b.file);
    if (!aIn && !bIn) continue;
    const [here, there] = aIn && bIn ? [clone.b, clone.a] : aIn ? [clone.a, clone.b] : [clone.b, clone.a];
    pieces.push({
      region: here,
      within: aIn && bIn,
      others: [there],
      tokens: clone.tokens,
      lines: clone.lines,
      identical: clone.identical,
    });
  }
  // Overlapping pieces of one file (a region copied to several places, or one copy matched in
  // parts) become one finding over their union, listing every other copy.
  pieces.sort(
    (p, q) =>
      p.region.file.localeCompare(q.region.file) ||
      Number(q.within) - Number(p.within) ||
      p.region.startLine - q.region.startLine,
  );
  const merged: Group[] = [];
  for (const piece of pieces) {
    const last = merged.at(-1);
    if (
      last !== undefined &&
      last.region.file === piece.region.file &&
      last.within === piece.within &&
      piece.region.startLine <= last.region.endLine
    ) {
      last.region = {
        file: last.region.file,
        startLine: last.region.startLine,
        endLine: Math.max(last.region.endLine, piece.region.endLine),
      };
      for (const other of piece.others)
        if (!last.others.some((o) => o.file === other.file && o.startLine === other.startLine)) last.others.push(other);
      last.tokens = Math.max(last.tokens, piece.tokens);
      last.lines = Math.max(last.lines, piece.lines);
      last.identical = Math.min(last.identical, piece.identical);
    } else {
      merged.push({ ...piece, others: [...piece.others] });
    }
  }
  const grouped = new Map(merged.map((g) => [`${g.region.file}:${g.region.startLine}`, g]));
  return [...grouped.values()].map(({ region, within, others: allOthers, tokens, lines, identical }) => {
    const others = allOthers.slice(0, 20);
    const first = others[0] ?? region;
    const kind = identical >= 0.99 ? 'verbatim copy' : 'copy with renamed identifiers';
    const where = others.map((o) => `${o.file}:${o.startLine}-${o.endLine}`).join(', ');
    return draftFinding({
      severity: 'medium',
      score: lines >= 30 ? 6 : 5,
      category: 'maintainability',
      finding_type: within ? 'duplicate/within-change' : 'duplicate/against-repo',
      file: region.file,
      line_range: { start: region.startLine, end: region.endLine },
      title: `Duplicated code (${lines} lines of code, ${kind}) — also at ${first.file}:${first.startLine}`,
      current_behaviour: `${region.file}:${region.startLine}-${region.endLine} repeats ${tokens} tokens of ${where} (${kind}${within ? ', both in this change' : ', the other copy already exists in the repository'}). A fix or change to one copy will not reach the other.`,
      expected_behaviour: within
        ? 'The repeated logic exists once (an extracted function or module) and every place that needs it calls it.'
        : `The change reuses the existing code at ${first.file}:${first.startLine} (extracting or exporting it if needed) instead of copying it.`,
      observable_test_conditions: [
        'one test of the shared function covers the behaviour both call sites rely on, and both call sites still pass their existing tests',
        'changing the shared logic in one place changes the behaviour at every former copy',
      ],
      forbidden_in_test: [
        'tests that pin the duplicated implementation line by line',
        'tests that only assert the two copies are textually different',
      ],
      related_locations: others.map((o) => ({
        file: o.file,
        line_range: { start: o.startLine, end: o.endLine },
        note: 'other copy',
      })),
    });
  });
}

const SHAPE_WORDS: Readonly<Record<ShapeUnit['kind'], string>> = {
  interface: 'interfaces',
  type: 'type aliases',
  overloads: 'overload lists',
  fields: 'classes of fields only (DTOs)',
  signature: 'signatures',
};

/**
 * Type-only declarations that repeat one shape (overload lists, interfaces, DTO classes, method
 * signatures of one form): what a language makes authors write again is reported once per family,
 * at low severity, on its first member under review — never per pair, and never as copied logic.
 */
export function shapeFamiliesToDrafts(
  streams: ReadonlyMap<string, TokenStream>,
  review: ReadonlySet<string>,
  minTokens: number,
): FindingDraft[] {
  const families = new Map<string, { file: string; unit: ShapeUnit }[]>();
  for (const [file, stream] of streams) {
    for (const unit of stream.shapes) {
      if (unit.tokens < minTokens) continue;
      const members = families.get(unit.hash) ?? [];
      members.push({ file, unit });
      families.set(unit.hash, members);
    }
  }
  const drafts: FindingDraft[] = [];
  for (const members of families.values()) {
    if (members.length < 2) continue;
    members.sort((p, q) => p.file.localeCompare(q.file) || p.unit.startLine - q.unit.startLine);
    const here = members.find((m) => review.has(m.file));
    if (here === undefined) continue;
    const others = members.filter((m) => m !== here).slice(0, 20);
    const names = members
      .map((m) => m.unit.name || '(anonymous)')
      .slice(0, 6)
      .join(', ');
    drafts.push(
      draftFinding({
        severity: 'low',
        score: 2,
        category: 'maintainability',
        finding_type: 'duplicate/repeated-shape',
        file: here.file,
        line_range: { start: here.unit.startLine, end: here.unit.endLine },
        title: `${members.length} ${SHAPE_WORDS[here.unit.kind]} share one shape (${names}${members.length > 6 ? ', …' : ''})`,
        current_behaviour: `${members
          .map((m) => `${m.file}:${m.unit.startLine}`)
          .slice(0, 8)
          .join(
            ', ',
          )}${members.length > 8 ? ', …' : ''} declare the same type-only shape (${here.unit.tokens} tokens) under other names. It is no copied logic, but each change to the shape has to be made ${members.length} times.`,
        expected_behaviour:
          'Where the repetition is not forced by the language or a framework, the shape is declared once (a generic, a mapped or derived type, a base class) and the others refer to it; otherwise nothing needs to change.',
        observable_test_conditions: [
          'the type-check still passes for every former member of the family',
          'changing the shared declaration changes every use',
        ],
        forbidden_in_test: ['tests that only assert the declarations are textually different'],
        related_locations: others.map((o) => ({
          file: o.file,
          line_range: { start: o.unit.startLine, end: o.unit.endLine },
          note: `same shape: ${o.unit.name || 'anonymous'}`,
        })),
      }),
    );
  }
  return drafts;
}

/** `quality/duplicate-code-detector`: token/AST-normalised windows over the repository's code files. */
export function duplicateCodeCritic(
  options: { readonly timeoutMs?: number; readonly detect?: Partial<DetectOptions> } = {},
): CriticDefinition {
  const detectOptions: DetectOptions = { ...DEFAULT_DETECT_OPTIONS, ...options.detect };
  return defineCritic({
    id: 'quality/duplicate-code-detector',
    evidence: 'ast',
    description:
      'Deterministic clone detection on TypeScript-scanner tokens with identifiers and literals normalised (renamed copies still match; tables of the same shape holding other data do not), within the change and against the rest of the repository.',
    triggers: [],
    timeoutMs: options.timeoutMs ?? 300_000,
    covers: isCodeFile,
    async run(context: CriticContext): Promise<readonly FindingDraft[]> {
      const reader = context.reader;
      // The review's code files are compared with each other and with the rest of the repository's.
      const files = [...new Set([...(await context.repoFiles()), ...context.files])].filter(isCodeFile).sort();
      const generated = (file: string): void =>
        context.coverage.skipped(file, 'generated', 'generated or minified (very long lines): not compared');
      const cache = AnalysisCache.open<CacheEntry>(
        context.cacheDir,
        'quality/duplicate-code-detector',
        DUPLICATES_VERSION,
        detectOptions,
      );
      const streams = new Map<string, TokenStream>();
      const hashes: Record<string, string> = {};
      let tokenised = 0;
      let reused = 0;
      for (const file of files) {
        context.signal.throwIfAborted();
        const hash = reader.hash(file);
        if (hash === null) continue;
        const cached = cache.get(file);
        let stream: TokenStream;
        if (
          cached !== undefined &&
          cached.hash === hash &&
          (cached.stream !== undefined || cached.generated === true)
        ) {
          cache.set(file, cached);
          if (cached.stream === undefined) {
            generated(file);
            continue;
          }
          stream = cached.stream;
          reused += 1;
        } else {
          const text = reader.read(file);
          if (text === null) continue;
          if (looksGenerated(text)) {
            cache.set(file, { hash, generated: true });
            generated(file);
            continue;
          }
          stream = tokenize(file, text);
          cache.set(file, { hash, stream });
          tokenised += 1;
          if (tokenised % 100 === 0) await yieldToEventLoop();
        }
        streams.set(file, stream);
        hashes[file] = hash;
      }
      context.signal.throwIfAborted();
      // Clones between two unchanged files are taken from the last run; only clones touching a
      // changed (or new) file are searched for again.
      const previous = cache.get('#clones');
      const changed = new Set(Object.keys(hashes).filter((file) => previous?.files?.[file] !== hashes[file]));
      let clones: Clone[];
      if (previous?.clones === undefined || previous.files === undefined) {
        clones = detectClones(streams, detectOptions);
      } else {
        const unchanged = (file: string): boolean => hashes[file] !== undefined && !changed.has(file);
        const kept = previous.clones.filter((c) => unchanged(c.a.file) && unchanged(c.b.file));
        clones = sortClones([...kept, ...(changed.size === 0 ? [] : detectClones(streams, detectOptions, changed))]);
      }
      const same =
        previous?.clones !== undefined &&
        changed.size === 0 &&
        Object.keys(previous.files ?? {}).length === Object.keys(hashes).length;
      cache.set('#clones', same && previous !== undefined ? previous : { hash: '', files: hashes, clones });
      cache.save();
      context.note?.(
        `${streams.size} code files: ${tokenised} tokenised, ${reused} reused from the cache; ${changed.size} re-matched`,
      );
      const review = new Set(context.files);
      return [...clonesToDrafts(clones, review), ...shapeFamiliesToDrafts(streams, review, detectOptions.minTokens)];
    },
  });
}
