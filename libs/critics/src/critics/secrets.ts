import { type SecretHit, scanForSecrets, shannonEntropy } from '@rloop/domain';
import type { CriticContext, CriticDefinition, FindingDraft } from '../critic.js';
import { defineCritic, draftFinding } from '../plumbing/define.js';
import { AnalysisCache } from '../repo/cache.js';
import { isBinaryByName, yieldToEventLoop } from '../repo/files.js';
import { type KeyUseHit, findKeyUses } from '../secrets/key-use.js';

// The rules themselves (provider formats, credential assignments, entropy) live in @rloop/domain,
// so redaction of patches, letters and logs masks exactly what this critic reports.
export { scanForSecrets, shannonEntropy, type SecretHit };

// Bumped when the rules change (secrets-8: literals used as keys), so cached hits are not reused.
const SECRETS_VERSION = 'secrets-8';

interface CacheEntry {
  readonly hash: string;
  readonly hits: SecretHit[];
  readonly keys: KeyUseHit[];
  /** Content hashes of the other files the key-use rule read (constants imported from them). */
  readonly keyDeps: Record<string, string>;
}

/** `security/secrets-detector`: provider key formats, credential assignments and high-entropy literals. */
export function secretsDetectorCritic(options: { readonly timeoutMs?: number } = {}): CriticDefinition {
  return defineCritic({
    id: 'security/secrets-detector',
    evidence: 'pattern',
    description:
      'Provider key patterns (AWS, GitHub, Slack, Stripe, Anthropic, OpenAI, Google, private keys, JWTs), hard-coded credentials and high-entropy literals; documented examples and placeholders allowlisted; literals used as signing, encryption, session or HMAC keys and OAuth client secrets in well-known APIs.',
    triggers: ['**/auth/**', '**/config/**', '**/*.env*'],
    timeoutMs: options.timeoutMs ?? 120_000,
    // Every text file: keys hide in code, configuration and documentation alike. A keystore is binary by name.
    covers: (file) => !isBinaryByName(file),
    async run(context: CriticContext): Promise<readonly FindingDraft[]> {
      const reader = context.reader;
      const cache = AnalysisCache.open<CacheEntry>(context.cacheDir, 'security/secrets-detector', SECRETS_VERSION, {});
      const exists = (path: string): boolean => reader.hash(path) !== null;
      const drafts: FindingDraft[] = [];
      let scanned = 0;
      for (const file of context.files) {
        context.signal.throwIfAborted();
        if (isBinaryByName(file)) continue;
        const hash = reader.hash(file);
        if (hash === null) {
          // Keys are text: binary content (whatever the name) is not what this critic reviews.
          const outcome = reader.outcome(file);
          if (outcome !== undefined && !outcome.ok && outcome.reason === 'binary') context.coverage.unsupported(file);
          continue;
        }
        const cached = cache.get(file);
        const fresh =
          cached !== undefined &&
          cached.hash === hash &&
          Object.entries(cached.keyDeps).every(([dep, depHash]) => reader.hash(dep) === depHash);
        let entry: CacheEntry;
        if (fresh) {
          entry = cached;
        } else {
          const text = reader.read(file);
          const keyUse =
            text === null
              ? { hits: [], deps: [] }
              : findKeyUses({ file, text, read: (path) => reader.read(path), exists });
          const keyDeps: Record<string, string> = {};
          for (const dep of keyUse.deps) keyDeps[dep] = reader.hash(dep) ?? 'missing';
          entry = { hash, hits: text === null ? [] : scanForSecrets(file, text), keys: keyUse.hits, keyDeps };
        }
        cache.set(file, entry);
        // A literal used as a key is reported once, at its use, as that (the more specific finding).
        const keyLines = new Set(entry.keys.map((k) => k.line));
        for (const hit of entry.hits) if (!keyLines.has(hit.line)) drafts.push(secretDraft(file, hit));
        for (const key of entry.keys) drafts.push(keyUseDraft(file, key));
        scanned += 1;
        if (scanned % 200 === 0) await yieldToEventLoop();
      }
      cache.save();
      return drafts;
    },
  });
}

function keyUseDraft(file: string, hit: KeyUseHit): FindingDraft {
  const fallback = hit.kind === 'hardcoded-key-fallback';
  const where = hit.definedAt === null ? '' : `, written at ${hit.definedAt.file}:${hit.definedAt.line}`;
  return draftFinding({
    severity: fallback ? 'medium' : 'critical',
    score: fallback ? 5 : 9,
    category: 'security',
    finding_type: `secret/${hit.kind}`,
    file,
    line_range: { start: hit.line, end: hit.line },
    title: fallback
      ? `Hard-coded fallback key: a literal is the ${hit.label} when the environment has none`
      : `Hard-coded key: a literal is the ${hit.label}`,
    current_behaviour: fallback
      ? `${file}:${hit.line} uses a literal (${hit.redacted}${where}) as the ${hit.label} whenever the configured value is missing: a deployment without it runs with a key everyone who can read the repository knows.`
      : `${file}:${hit.line} passes a literal (${hit.redacted}${where}) as the ${hit.label}. Anyone who can read the repository or its history can forge what this key signs, read what it encrypts or hijack the sessions it protects.`,
    expected_behaviour: fallback
      ? 'The key comes only from the environment or a secret manager, and the service refuses to start (with a clear error) when it is missing, instead of falling back to a known value.'
      : 'The key is read at runtime from the environment or a secret manager, never written in the source; the exposed value is rotated (removing it from the file does not remove it from git history).',
    observable_test_conditions: [
      'with the key configured in the environment, tokens/cookies/ciphertexts made with it verify, and ones made with the old literal are rejected',
      fallback
        ? 'starting without the key configured fails with an error naming the missing variable'
        : `${file} contains no literal passed as the ${hit.label}`,
    ],
    forbidden_in_test: [
      'putting the real key (or any live credential) into a test or fixture',
      'asserting on the key value itself',
    ],
    related_locations:
      hit.definedAt === null
        ? []
        : [
            {
              file: hit.definedAt.file,
              line_range: { start: hit.definedAt.line, end: hit.definedAt.line },
              note: 'the literal is written here',
            },
          ],
  });
}

function secretDraft(file: string, hit: SecretHit): FindingDraft {
  return draftFinding({
    severity: 'critical',
    score: hit.kind === 'high-entropy-string' ? 7 : 9,
    category: 'security',
    finding_type: `secret/${hit.kind}`,
    file,
    line_range: { start: hit.line, end: hit.line },
    title: `Committed secret: ${hit.label} in ${file}`,
    current_behaviour: `${file}:${hit.line} contains a ${hit.label} (${hit.redacted}) in the source. Anyone with read access to the repository or its history can use it.`,
    expected_behaviour:
      'The credential is read at runtime from the environment or a secret manager and is absent from the repository; the exposed value is revoked and rotated (removing it from the file does not remove it from git history).',
    observable_test_conditions: [
      'the code reads the credential from configuration (e.g. process.env) and fails with a clear error when it is missing',
      `${file} contains no literal matching the ${hit.label} pattern`,
    ],
    forbidden_in_test: [
      'putting the real secret (or any live credential) into a test or fixture',
      'asserting on the secret value itself',
    ],
  });
}
