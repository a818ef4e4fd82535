import type { CriticContext, CriticDefinition, FindingDraft } from '../critic.js';
import { defineCritic, draftFinding } from '../plumbing/define.js';
import { AnalysisCache } from '../repo/cache.js';
import { RepoReader, listRepoFiles, yieldToEventLoop } from '../repo/files.js';
import { isCodeFile } from '../sast/project.js';
import { type Clone, DEFAULT_DETECT_OPTIONS, type DetectOptions, type TokenStream, detectClones, tokenize } from './detect.js';

const DUPLICATES_VERSION = 'dup-3';

interface Region {
  readonly file: string;
  readonly startLine: number;
  readonly endLine: number;
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
  const grouped = new Map<string, { region: Region; within: boolean; others: Region[]; tokens: number; identical: number }>();
  for (const clone of clones) {
    const aIn = review.has(clone.a.file);
    const bIn = review.has(clone.b.file);
    if (!aIn && !bIn) continue;
    const [here, there] = aIn && bIn ? [clone.b, clone.a] : aIn ? [clone.a, clone.b] : [clone.b, clone.a];
    const key = `${here.file}:${here.startLine}:${here.endLine}`;
    const group = grouped.get(key) ?? { region: here, within: aIn && bIn, others: [], tokens: clone.tokens, identical: clone.identical };
    group.within = group.within && aIn && bIn;
    if (!group.others.some((o) => o.file === there.file && o.startLine === there.startLine)) group.others.push(there);
    grouped.set(key, group);
  }
  return [...grouped.values()].map(({ region, within, others, tokens, identical }) => {
    const lines = region.endLine - region.startLine + 1;
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
      title: `Duplicated code (${lines} lines, ${kind}) — also at ${first.file}:${first.startLine}`,
      current_behaviour: `${region.file}:${region.startLine}-${region.endLine} repeats ${tokens} tokens of ${where} (${kind}${within ? ', both in this change' : ', the other copy already exists in the repository'}). A fix or change to one copy will not reach the other.`,
      expected_behaviour: within
        ? 'The repeated logic exists once (an extracted function or module) and every place that needs it calls it.'
        : `The change reuses the existing code at ${first.file}:${first.startLine} (extracting or exporting it if needed) instead of copying it.`,
      observable_test_conditions: [
        'one test of the shared function covers the behaviour both call sites rely on, and both call sites still pass their existing tests',
        'changing the shared logic in one place changes the behaviour at every former copy',
      ],
      forbidden_in_test: ['tests that pin the duplicated implementation line by line', 'tests that only assert the two copies are textually different'],
      related_locations: others.map((o) => ({ file: o.file, line_range: { start: o.startLine, end: o.endLine }, note: 'other copy' })),
    });
  });
}

/** `quality/duplicate-code-detector`: token/AST-normalised windows over the repository's code files. */
export function duplicateCodeCritic(options: { readonly timeoutMs?: number; readonly detect?: Partial<DetectOptions> } = {}): CriticDefinition {
  const detectOptions: DetectOptions = { ...DEFAULT_DETECT_OPTIONS, ...options.detect };
  return defineCritic({
    id: 'quality/duplicate-code-detector',
    evidence: 'ast',
    description: 'Deterministic clone detection on TypeScript-scanner tokens with identifiers and literals normalised (renamed copies still match), within the change and against the rest of the repository.',
    triggers: [],
    timeoutMs: options.timeoutMs ?? 300_000,
    async run(context: CriticContext): Promise<readonly FindingDraft[]> {
      const reader = new RepoReader(context.repoDir);
      const files = (await listRepoFiles(context.repoDir, context.signal)).filter(isCodeFile);
      const cache = AnalysisCache.open<{ hash: string; stream: TokenStream }>(context.cacheDir, 'quality/duplicate-code-detector', DUPLICATES_VERSION, {});
      const streams = new Map<string, TokenStream>();
      let tokenised = 0;
      let reused = 0;
      for (const file of files) {
        context.signal.throwIfAborted();
        const hash = reader.hash(file);
        const text = reader.read(file);
        if (hash === null || text === null || looksGenerated(text)) continue;
        const cached = cache.get(file);
        let stream: TokenStream;
        if (cached !== undefined && cached.hash === hash) {
          stream = cached.stream;
          reused += 1;
        } else {
          stream = tokenize(file, text);
          tokenised += 1;
          if (tokenised % 100 === 0) await yieldToEventLoop();
        }
        cache.set(file, { hash, stream });
        streams.set(file, stream);
      }
      cache.save();
      context.signal.throwIfAborted();
      context.note?.(`${streams.size} code files: ${tokenised} tokenised, ${reused} reused from the cache`);
      const clones = detectClones(streams, detectOptions);
      return clonesToDrafts(clones, new Set(context.files));
    },
  });
}
