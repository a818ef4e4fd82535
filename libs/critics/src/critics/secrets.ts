import type { CriticContext, CriticDefinition, FindingDraft } from '../critic.js';
import { defineCritic, draftFinding } from '../plumbing/define.js';
import { AnalysisCache } from '../repo/cache.js';
import { FileHashIndex, RepoReader, yieldToEventLoop } from '../repo/files.js';

/** One kind of secret the detector knows by its shape. */
interface SecretPattern {
  readonly id: string;
  readonly label: string;
  readonly regex: RegExp;
  /** Capture group holding the secret itself (0: the whole match). */
  readonly group?: number;
}

// Provider formats as documented by each provider (and as GitHub secret scanning / gitleaks match them).
const PATTERNS: readonly SecretPattern[] = [
  { id: 'aws-access-key', label: 'AWS access key id', regex: /\b((?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})\b/g, group: 1 },
  { id: 'aws-secret-key', label: 'AWS secret access key', regex: /aws.{0,20}?(?:secret|sk).{0,20}?['"`]([0-9a-zA-Z/+]{40})['"`]/gi, group: 1 },
  { id: 'github-token', label: 'GitHub token', regex: /\b(gh[pousr]_[A-Za-z0-9]{36,255})\b/g, group: 1 },
  { id: 'github-token', label: 'GitHub fine-grained token', regex: /\b(github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})\b/g, group: 1 },
  { id: 'slack-token', label: 'Slack token', regex: /\b(xox[baprs]-[0-9A-Za-z-]{10,})\b/g, group: 1 },
  { id: 'slack-webhook', label: 'Slack webhook URL', regex: /(https:\/\/hooks\.slack\.com\/services\/T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]{16,})/g, group: 1 },
  { id: 'stripe-key', label: 'Stripe secret key', regex: /\b((?:sk|rk)_(?:live|test)_[0-9a-zA-Z]{20,})\b/g, group: 1 },
  // Real Anthropic keys carry ~95 random characters after the prefix; short look-alikes are test doubles.
  { id: 'anthropic-key', label: 'Anthropic API key', regex: /\b(sk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{80,})/g, group: 1 },
  { id: 'openai-key', label: 'OpenAI API key', regex: /\b(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,})/g, group: 1 },
  { id: 'openai-key', label: 'OpenAI project key', regex: /\b(sk-proj-[A-Za-z0-9_-]{40,})/g, group: 1 },
  { id: 'google-api-key', label: 'Google API key', regex: /\b(AIza[0-9A-Za-z_-]{35})\b/g, group: 1 },
  { id: 'google-oauth-secret', label: 'Google OAuth client secret', regex: /\b(GOCSPX-[A-Za-z0-9_-]{28})\b/g, group: 1 },
  { id: 'npm-token', label: 'npm access token', regex: /\b(npm_[A-Za-z0-9]{36})\b/g, group: 1 },
  { id: 'sendgrid-key', label: 'SendGrid API key', regex: /\b(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})\b/g, group: 1 },
  { id: 'twilio-key', label: 'Twilio API key', regex: /\b(SK[0-9a-fA-F]{32})\b/g, group: 1 },
  { id: 'private-key', label: 'private key', regex: /(-----BEGIN (?:RSA |DSA |EC |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----)/g, group: 1 },
  { id: 'jwt', label: 'JSON Web Token', regex: /\b(eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})/g, group: 1 },
  { id: 'azure-storage-key', label: 'Azure storage account key', regex: /AccountKey=([A-Za-z0-9+/]{80,}={0,2})/g, group: 1 },
  { id: 'url-credentials', label: 'password in a URL', regex: /\bhttps?:\/\/[^:\s/'"`@]+:([^@\s/'"`]{3,})@[\w.-]+/g, group: 1 },
  {
    id: 'connection-string-password',
    label: 'password in a connection string',
    regex: /\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|mssql):\/\/[^:\s/'"`@]+:([^@\s/'"`]{3,})@/g,
    group: 1,
  },
];

/** `password = "…"`, `apiKey: '…'`, `SECRET_TOKEN=…` — a literal assigned to a secret-sounding name. */
const ASSIGNMENT =
  /(?:^|[^A-Za-z0-9_])([A-Za-z0-9_.-]*(?:password|passwd|pwd|secret|api[_-]?key|apikey|token|auth|credential|private[_-]?key|signing[_-]?key|bearer)[A-Za-z0-9_]*)["']?\s*(?:[:=]|:=|=>)\s*(?:["'`]([^"'`\n]{6,})["'`]|([^\s"'`#;,]{8,})\s*(?:#.*)?$)/gim;
/** Names that hold passwords (people choose them: words and digits are enough). */
const PASSWORD_NAME = /password|passwd|pwd/i;

/** Quoted string literals long enough to be a key (for the entropy check). */
const LITERAL = /(["'`])(?:Bearer |Basic |Token )?([A-Za-z0-9+/=_-]{24,})\1/g;

/** Keys the providers publish in their documentation; finding them means nothing leaked. */
const DOCUMENTED_EXAMPLES = new Set([
  'AKIAIOSFODNN7EXAMPLE',
  'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  'sk_test_4eC39HqLyjWDarjtT1zdp7dc',
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
]);

const PLACEHOLDER =
  /example|sample|dummy|placeholder|changeme|change[_-]?me|your[_-]|<[^>]*>|\$\{|\{\{|xxxx|\*\*\*\*|redacted|replace[_-]?me|insert[_-]|todo|fake|mock|not[_-]?a[_-]?real|test[_-]?(?:password|secret|key|token)|^(?:password|secret|passw0rd|password123|123456+|admin|root|test|testing|none|null|undefined|true|false)$/i;

/** Names whose values are hashes, ids or public material, not secrets. */
const BENIGN_NAME = /hash|sha|digest|checksum|integrity|etag|uuid|guid|nonce|salt_?rounds|public|pubkey|fingerprint|version|commit|color|icon|image|base64|placeholder|label|field|path|url|route|name$|type$|regex|pattern/i;

/** Files that are full of high-entropy strings that are not secrets. */
const SKIPPED_FILE = /(^|\/)(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb|composer\.lock|Cargo\.lock|go\.sum|poetry\.lock)$|\.(min\.js|map|svg|png|jpe?g|gif|ico|woff2?|ttf|eot|pdf|zip|gz|snap)$/;

/** Shannon entropy in bits per character. */
export function shannonEntropy(text: string): number {
  if (text.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

// TODO(calibration): 4.3 bits/char separates random base64 keys from words and identifiers on the corpus; tune on real repos.
const ENTROPY_THRESHOLD = 4.3;
const ENTROPY_MIN_LENGTH = 32;
/** Longer literals are data (images, fixtures), not keys; private keys are matched by their header. */
const ENTROPY_MAX_LENGTH = 100;
/** Base64 of common binary formats (PNG, JPEG, GIF, PDF, WOFF, zip). */
const BINARY_BASE64 = /^(iVBORw0KGgo|\/9j\/|R0lGOD|JVBERi|d09GR|UEsDB|AAAA)/;

/** Runs like `abcdef`, `012345` or `000000`: typed by a person as filler, not generated. */
function hasFillerRun(text: string): boolean {
  let ascending = 1;
  let same = 1;
  for (let i = 1; i < text.length; i += 1) {
    const step = text.charCodeAt(i) - text.charCodeAt(i - 1);
    ascending = step === 1 ? ascending + 1 : 1;
    same = step === 0 ? same + 1 : 1;
    if (ascending >= 6 || same >= 6) return true;
  }
  return false;
}

/** `dl-journal-append-RLOOP_EVENTS-7`: words joined by separators are an identifier, not a key. */
function looksLikeIdentifier(text: string): boolean {
  const parts = text.split(/[-_./:]+/).filter((p) => p !== '');
  const words = parts.filter((p) => /^[A-Za-z]{4,}$/.test(p));
  return parts.length >= 3 && words.length * 2 >= parts.length;
}

function isPlaceholder(secret: string): boolean {
  if (DOCUMENTED_EXAMPLES.has(secret) || PLACEHOLDER.test(secret) || /[[\]<>{}]/.test(secret)) return true;
  if (/^(.)\1+$/.test(secret) || hasFillerRun(secret)) return true;
  // Almost all one character (sk_live_xxxxxxxxxxxxxxxxxxxx) is a template, not a key.
  const body = secret.replace(/^[a-z]{2,4}_(live|test)_|^(gh[pousr]_|xox[baprs]-|AKIA|AIza|sk-)/, '');
  const distinct = new Set(body).size;
  return body.length >= 12 && distinct <= 3;
}

/** The secret is read from somewhere at runtime, not written down. */
function isReference(value: string): boolean {
  return /^(process\.env|import\.meta\.env|env\.|config\.|settings\.|os\.environ|getenv|\$[A-Z_]|\$\{)/.test(value) || /^[A-Z][A-Z0-9_]+$/.test(value);
}

export interface SecretHit {
  readonly line: number;
  readonly kind: string;
  readonly label: string;
  readonly redacted: string;
}

function redact(secret: string): string {
  if (secret.startsWith('-----BEGIN')) return secret;
  return secret.length <= 8 ? '****' : `${secret.slice(0, 4)}…${secret.slice(-2)} (${secret.length} chars)`;
}

/** Scans one file's text. Pure: the same text always gives the same hits. */
export function scanForSecrets(file: string, text: string): SecretHit[] {
  if (SKIPPED_FILE.test(file)) return [];
  const hits = new Map<string, SecretHit>();
  const code = /\.(m|c)?(t|j)sx?$/.test(file);
  const lines = text.split(/\r?\n/);
  const add = (line: number, kind: string, label: string, secret: string): void => {
    const key = `${line}|${kind}`;
    if (!hits.has(key) && ![...hits.values()].some((h) => h.line === line)) hits.set(key, { line, kind, label, redacted: redact(secret) });
  };
  lines.forEach((lineText, index) => {
    if (lineText.length > 5000 || /rloop-ignore-secret|gitleaks:allow|pragma: allowlist secret/.test(lineText)) return;
    const line = index + 1;
    for (const pattern of PATTERNS) {
      pattern.regex.lastIndex = 0;
      for (const match of lineText.matchAll(pattern.regex)) {
        const secret = match[pattern.group ?? 0] ?? match[0];
        const urlPassword = pattern.id === 'connection-string-password' || pattern.id === 'url-credentials';
        if (urlPassword ? PLACEHOLDER.test(secret) || isReference(secret) || /[[\]<>{}]/.test(secret) || /^(pass(word)?|pwd|secret)$/i.test(secret) : isPlaceholder(secret)) continue;
        add(line, pattern.id, pattern.label, secret);
      }
    }
    ASSIGNMENT.lastIndex = 0;
    for (const match of lineText.matchAll(ASSIGNMENT)) {
      const name = match[1] ?? '';
      // Unquoted values only count in configuration files (.env, YAML); in code they are expressions.
      const value = match[2] ?? (code ? '' : (match[3] ?? ''));
      if (value === '' || BENIGN_NAME.test(name) || isReference(value) || isPlaceholder(value)) continue;
      if (/^[a-z]+([A-Z][a-z]+)*$/.test(value) && value.length < 16) continue;
      if (/\s/.test(value.trim()) && !/[0-9!@#$%^&*]/.test(value)) continue;
      // Tokens and keys are machine-made: random-looking and long. Header names and messages are not.
      const bare = value.replace(/^(Bearer|Basic|Token|token)\s+/, '');
      if (!PASSWORD_NAME.test(name) && (bare.length < 12 || /\s/.test(bare) || !/[0-9]/.test(bare) || !/[A-Za-z]/.test(bare) || shannonEntropy(bare) < 3)) continue;
      add(line, 'hardcoded-password', `hard-coded credential in ${name}`, value);
    }
    LITERAL.lastIndex = 0;
    for (const match of lineText.matchAll(LITERAL)) {
      const value = match[2] ?? '';
      if (value.length < ENTROPY_MIN_LENGTH || value.length > ENTROPY_MAX_LENGTH || BINARY_BASE64.test(value) || isPlaceholder(value) || looksLikeIdentifier(value)) continue;
      if (!/[a-z]/.test(value) || !/[A-Z]/.test(value) || !/[0-9]/.test(value)) continue;
      const before = lineText.slice(0, match.index);
      if (BENIGN_NAME.test(before.slice(-40)) || /^(sha\d+|md5)-/.test(value)) continue;
      if (shannonEntropy(value) >= ENTROPY_THRESHOLD) add(line, 'high-entropy-string', 'high-entropy string that looks like a key', value);
    }
  });
  return [...hits.values()].sort((a, b) => a.line - b.line);
}

const SECRETS_VERSION = 'secrets-6';

/** `security/secrets-detector`: provider key formats, credential assignments and high-entropy literals. */
export function secretsDetectorCritic(options: { readonly timeoutMs?: number } = {}): CriticDefinition {
  return defineCritic({
    id: 'security/secrets-detector',
    evidence: 'pattern',
    description: 'Provider key patterns (AWS, GitHub, Slack, Stripe, Anthropic, OpenAI, Google, private keys, JWTs), hard-coded credentials and high-entropy literals; documented examples and placeholders allowlisted.',
    triggers: ['**/auth/**', '**/config/**', '**/*.env*'],
    timeoutMs: options.timeoutMs ?? 120_000,
    async run(context: CriticContext): Promise<readonly FindingDraft[]> {
      // The shell may read the clock (for the hash index's racy-file rule); the scan never does.
      const reader = new RepoReader(context.repoDir, FileHashIndex.open(context.cacheDir, Date.now()));
      const cache = AnalysisCache.open<{ hash: string; hits: SecretHit[] }>(context.cacheDir, 'security/secrets-detector', SECRETS_VERSION, {});
      const drafts: FindingDraft[] = [];
      let scanned = 0;
      for (const file of context.files) {
        context.signal.throwIfAborted();
        const hash = reader.hash(file);
        if (hash === null) continue;
        const cached = cache.get(file);
        const text = cached !== undefined && cached.hash === hash ? null : reader.read(file);
        const hits = cached !== undefined && cached.hash === hash ? cached.hits : text === null ? [] : scanForSecrets(file, text);
        cache.set(file, { hash, hits });
        for (const hit of hits) drafts.push(secretDraft(file, hit));
        scanned += 1;
        if (scanned % 200 === 0) await yieldToEventLoop();
      }
      cache.save();
      reader.saveIndex();
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
