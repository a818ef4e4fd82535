import { type SecretHit, scanForSecrets, shannonEntropy } from '@rloop/domain';
import type { CriticContext, CriticDefinition, FindingDraft } from '../critic.js';
import { defineCritic, draftFinding } from '../plumbing/define.js';
import { AnalysisCache } from '../repo/cache.js';
import { isBinaryByName, yieldToEventLoop } from '../repo/files.js';

// The rules themselves (provider formats, credential assignments, entropy) live in @rloop/domain,
// so redaction of patches, letters and logs masks exactly what this critic reports.
export { scanForSecrets, shannonEntropy, type SecretHit };

// Bumped when the rules change (secrets-7: passwords in nats, tls and ws URLs), so cached hits are not reused.
const SECRETS_VERSION = 'secrets-7';

/** `security/secrets-detector`: provider key formats, credential assignments and high-entropy literals. */
export function secretsDetectorCritic(options: { readonly timeoutMs?: number } = {}): CriticDefinition {
  return defineCritic({
    id: 'security/secrets-detector',
    evidence: 'pattern',
    description: 'Provider key patterns (AWS, GitHub, Slack, Stripe, Anthropic, OpenAI, Google, private keys, JWTs), hard-coded credentials and high-entropy literals; documented examples and placeholders allowlisted.',
    triggers: ['**/auth/**', '**/config/**', '**/*.env*'],
    timeoutMs: options.timeoutMs ?? 120_000,
    // Every text file: keys hide in code, configuration and documentation alike. A keystore is binary by name.
    covers: (file) => !isBinaryByName(file),
    async run(context: CriticContext): Promise<readonly FindingDraft[]> {
      const reader = context.reader;
      const cache = AnalysisCache.open<{ hash: string; hits: SecretHit[] }>(context.cacheDir, 'security/secrets-detector', SECRETS_VERSION, {});
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
        const text = cached !== undefined && cached.hash === hash ? null : reader.read(file);
        const hits = cached !== undefined && cached.hash === hash ? cached.hits : text === null ? [] : scanForSecrets(file, text);
        cache.set(file, { hash, hits });
        for (const hit of hits) drafts.push(secretDraft(file, hit));
        scanned += 1;
        if (scanned % 200 === 0) await yieldToEventLoop();
      }
      cache.save();
      return drafts;
    },
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
    forbidden_in_test: ['putting the real secret (or any live credential) into a test or fixture', 'asserting on the secret value itself'],
  });
}
