// The secrets detector's rules: which text is a credential. One rule set serves the
// `security/secrets-detector` critic (scanForSecrets: one finding per line) and redaction
// (maskSecrets: every span masked before an event is journaled, a log line printed or a report
// rendered). Pure: the same text always gives the same answer.

/** One kind of secret the detector knows by its shape. */
interface SecretPattern {
  readonly id: string;
  readonly label: string;
  /** Flags `gd`: global, with match indices (the secret is a capture group, not the whole match). */
  readonly regex: RegExp;
  /** Capture group holding the secret itself (0: the whole match). */
  readonly group?: number;
}

// Provider formats as documented by each provider (and as GitHub secret scanning / gitleaks match them).
const PATTERNS: readonly SecretPattern[] = [
  { id: 'aws-access-key', label: 'AWS access key id', regex: /\b((?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})\b/dg, group: 1 },
  {
    id: 'aws-secret-key',
    label: 'AWS secret access key',
    regex: /aws.{0,20}?(?:secret|sk).{0,20}?['"`]([0-9a-zA-Z/+]{40})['"`]/dgi,
    group: 1,
  },
  { id: 'github-token', label: 'GitHub token', regex: /\b(gh[pousr]_[A-Za-z0-9]{36,255})\b/dg, group: 1 },
  {
    id: 'github-token',
    label: 'GitHub fine-grained token',
    regex: /\b(github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})\b/dg,
    group: 1,
  },
  { id: 'slack-token', label: 'Slack token', regex: /\b(xox[baprs]-[0-9A-Za-z-]{10,})\b/dg, group: 1 },
  {
    id: 'slack-webhook',
    label: 'Slack webhook URL',
    regex: /(https:\/\/hooks\.slack\.com\/services\/T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]{16,})/dg,
    group: 1,
  },
  { id: 'stripe-key', label: 'Stripe secret key', regex: /\b((?:sk|rk)_(?:live|test)_[0-9a-zA-Z]{20,})\b/dg, group: 1 },
  // Real Anthropic keys carry ~95 random characters after the prefix; short look-alikes are test doubles.
  {
    id: 'anthropic-key',
    label: 'Anthropic API key',
    regex: /\b(sk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{80,})/dg,
    group: 1,
  },
  {
    id: 'openai-key',
    label: 'OpenAI API key',
    regex: /\b(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,})/dg,
    group: 1,
  },
  { id: 'openai-key', label: 'OpenAI project key', regex: /\b(sk-proj-[A-Za-z0-9_-]{40,})/dg, group: 1 },
  { id: 'google-api-key', label: 'Google API key', regex: /\b(AIza[0-9A-Za-z_-]{35})\b/dg, group: 1 },
  {
    id: 'google-oauth-secret',
    label: 'Google OAuth client secret',
    regex: /\b(GOCSPX-[A-Za-z0-9_-]{28})\b/dg,
    group: 1,
  },
  { id: 'npm-token', label: 'npm access token', regex: /\b(npm_[A-Za-z0-9]{36})\b/dg, group: 1 },
  {
    id: 'sendgrid-key',
    label: 'SendGrid API key',
    regex: /\b(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})\b/dg,
    group: 1,
  },
  { id: 'twilio-key', label: 'Twilio API key', regex: /\b(SK[0-9a-fA-F]{32})\b/dg, group: 1 },
  {
    id: 'private-key',
    label: 'private key',
    regex: /(-----BEGIN (?:RSA |DSA |EC |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----)/dg,
    group: 1,
  },
  {
    id: 'jwt',
    label: 'JSON Web Token',
    regex: /\b(eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})/dg,
    group: 1,
  },
  {
    id: 'azure-storage-key',
    label: 'Azure storage account key',
    regex: /AccountKey=([A-Za-z0-9+/]{80,}={0,2})/dg,
    group: 1,
  },
  {
    id: 'url-credentials',
    label: 'password in a URL',
    regex: /\bhttps?:\/\/[^:\s/'"`@]+:([^@\s/'"`]{3,})@[\w.-]+/dg,
    group: 1,
  },
  {
    id: 'connection-string-password',
    label: 'password in a connection string',
    regex:
      /\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|mssql|nats|tls|wss?):\/\/[^:\s/'"`@]+:([^@\s/'"`]{3,})@/dg,
    group: 1,
  },
];

/** `password = "…"`, `apiKey: '…'`, `SECRET_TOKEN=…` — a literal assigned to a secret-sounding name. */
const ASSIGNMENT =
  /(?:^|[^A-Za-z0-9_])([A-Za-z0-9_.-]*(?:password|passwd|pwd|secret|api[_-]?key|apikey|token|auth|credential|private[_-]?key|signing[_-]?key|bearer)[A-Za-z0-9_]*)["']?\s*(?:[:=]|:=|=>)\s*(?:["'`]([^"'`\n]{6,})["'`]|([^\s"'`#;,]{8,})\s*(?:#.*)?$)/dgim;
/** Names that hold passwords (people choose them: words and digits are enough). */
const PASSWORD_NAME = /password|passwd|pwd/i;

/** Quoted string literals long enough to be a key (for the entropy check). */
const LITERAL = /(["'`])(?:Bearer |Basic |Token )?([A-Za-z0-9+/=_-]{24,})\1/dg;

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
const BENIGN_NAME =
  /hash|sha|digest|checksum|integrity|etag|uuid|guid|nonce|salt_?rounds|public|pubkey|fingerprint|version|commit|color|icon|image|base64|placeholder|label|field|path|url|route|name$|type$|regex|pattern/i;

/** Files that are full of high-entropy strings that are not secrets. */
const SKIPPED_FILE =
  /(^|\/)(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb|composer\.lock|Cargo\.lock|go\.sum|poetry\.lock)$|\.(min\.js|map|svg|png|jpe?g|gif|ico|woff2?|ttf|eot|pdf|zip|gz|snap)$/;

/** Lines longer than this are data (minified bundles), not reviewed by the line rules. */
export const MAX_SCANNED_LINE = 5000;

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
  return (
    /^(process\.env|import\.meta\.env|env\.|config\.|settings\.|os\.environ|getenv|\$[A-Z_]|\$\{)/.test(value) ||
    /^[A-Z][A-Z0-9_]+$/.test(value)
  );
}

/** Where a secret sits in a line, in the order the rules found it. */
export interface SecretSpan {
  readonly kind: string;
  readonly label: string;
  /** Offsets in the line: [start, end). */
  readonly start: number;
  readonly end: number;
  readonly secret: string;
}

/** The group's offsets in a `d`-flagged match (the whole match when the group did not take part). */
function groupRange(match: RegExpExecArray | RegExpMatchArray, group: number): readonly [number, number] {
  const indices = match.indices?.[group] ?? match.indices?.[0];
  const start = indices?.[0] ?? match.index ?? 0;
  return [start, indices?.[1] ?? start + (match[group] ?? match[0]).length];
}

/**
 * Every secret the detector's rules find on one line: provider formats first, then credential
 * assignments, then high-entropy literals. `code`: in source code an unquoted value is an
 * expression, not a secret; in configuration files and free text it is a value.
 */
export function secretSpansOfLine(lineText: string, code: boolean): SecretSpan[] {
  return [...providerSecretSpans(lineText), ...assignmentSpans(lineText, code), ...literalSpans(lineText)];
}

/** Provider-format spans only (no assignment or entropy rules): cheap enough for text of any length. */
export function providerSecretSpans(text: string): SecretSpan[] {
  const spans: SecretSpan[] = [];
  for (const pattern of PATTERNS) {
    for (const match of text.matchAll(pattern.regex)) {
      const group = pattern.group ?? 0;
      const secret = match[group] ?? match[0];
      const urlPassword = pattern.id === 'connection-string-password' || pattern.id === 'url-credentials';
      if (
        urlPassword
          ? PLACEHOLDER.test(secret) ||
            isReference(secret) ||
            /[[\]<>{}]/.test(secret) ||
            /^(pass(word)?|pwd|secret)$/i.test(secret)
          : isPlaceholder(secret)
      )
        continue;
      const [start, end] = groupRange(match, group);
      spans.push({ kind: pattern.id, label: pattern.label, start, end, secret });
    }
  }
  return spans;
}

function assignmentSpans(lineText: string, code: boolean): SecretSpan[] {
  const spans: SecretSpan[] = [];
  for (const match of lineText.matchAll(ASSIGNMENT)) {
    const name = match[1] ?? '';
    // Unquoted values only count in configuration files (.env, YAML); in code they are expressions.
    const group = match[2] !== undefined ? 2 : code ? 0 : 3;
    const value = group === 0 ? '' : (match[group] ?? '');
    if (value === '' || BENIGN_NAME.test(name) || isReference(value) || isPlaceholder(value)) continue;
    if (/^[a-z]+([A-Z][a-z]+)*$/.test(value) && value.length < 16) continue;
    if (/\s/.test(value.trim()) && !/[0-9!@#$%^&*]/.test(value)) continue;
    // Tokens and keys are machine-made: random-looking and long. Header names and messages are not.
    const bare = value.replace(/^(Bearer|Basic|Token|token)\s+/, '');
    if (
      !PASSWORD_NAME.test(name) &&
      (bare.length < 12 || /\s/.test(bare) || !/[0-9]/.test(bare) || !/[A-Za-z]/.test(bare) || shannonEntropy(bare) < 3)
    )
      continue;
    const [start, end] = groupRange(match, group);
    spans.push({ kind: 'hardcoded-password', label: `hard-coded credential in ${name}`, start, end, secret: value });
  }
  return spans;
}

function literalSpans(lineText: string): SecretSpan[] {
  const spans: SecretSpan[] = [];
  for (const match of lineText.matchAll(LITERAL)) {
    const value = match[2] ?? '';
    if (
      value.length < ENTROPY_MIN_LENGTH ||
      value.length > ENTROPY_MAX_LENGTH ||
      BINARY_BASE64.test(value) ||
      isPlaceholder(value) ||
      looksLikeIdentifier(value)
    )
      continue;
    if (!/[a-z]/.test(value) || !/[A-Z]/.test(value) || !/[0-9]/.test(value)) continue;
    const before = lineText.slice(0, match.index);
    if (BENIGN_NAME.test(before.slice(-40)) || /^(sha\d+|md5)-/.test(value)) continue;
    if (shannonEntropy(value) < ENTROPY_THRESHOLD) continue;
    const [start, end] = groupRange(match, 2);
    spans.push({
      kind: 'high-entropy-string',
      label: 'high-entropy string that looks like a key',
      start,
      end,
      secret: value,
    });
  }
  return spans;
}

export interface SecretHit {
  readonly line: number;
  readonly kind: string;
  readonly label: string;
  readonly redacted: string;
}

/** How a finding shows a secret: enough to recognise it, never enough to use it. */
function describeSecret(secret: string): string {
  if (secret.startsWith('-----BEGIN')) return secret;
  return secret.length <= 8 ? '****' : `${secret.slice(0, 4)}…${secret.slice(-2)} (${secret.length} chars)`;
}

/** Lines a person marked as not secret (test inputs, documented values). */
export const SECRET_ALLOW_PRAGMA = /rloop-ignore-secret|gitleaks:allow|pragma: allowlist secret/;

/** Scans one file's text: at most one hit per line (the first rule that fires). Pure. */
export function scanForSecrets(file: string, text: string): SecretHit[] {
  if (SKIPPED_FILE.test(file)) return [];
  const code = /\.(m|c)?(t|j)sx?$/.test(file);
  const hits: SecretHit[] = [];
  text.split(/\r?\n/).forEach((lineText, index) => {
    if (lineText.length > MAX_SCANNED_LINE || SECRET_ALLOW_PRAGMA.test(lineText)) return;
    const first = secretSpansOfLine(lineText, code)[0];
    if (first !== undefined)
      hits.push({ line: index + 1, kind: first.kind, label: first.label, redacted: describeSecret(first.secret) });
  });
  return hits;
}
