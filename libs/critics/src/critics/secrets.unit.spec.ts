import { describe, expect, it } from '@jest/globals';
import { runCritic, scanForSecrets, secretsDetectorCritic, shannonEntropy } from '../index.js';
import { fixtureRepo } from '../__fixtures__/repo.js';

// Assembled at run time so this spec itself contains no key-shaped literal.
const fakeAws = ['AKIA', 'Z3MSJV4WUMNRXQ7B'].join('');
const fakeGithub = ['ghp', '_', 'R8xk2LmQ9vT4wZ7pN3', 'cY6bH1sD5fG0aJ2eK8'].join('');
const fakeStripe = ['sk', '_live_', '4xZq9TvL2mN8pR7sW1yB6cK3'].join('');

describe('scanForSecrets', () => {
  it('finds provider keys, private keys, connection-string passwords and credential assignments', () => {
    const text = [
      `const a = '${fakeAws}';`,
      `const gh = "${fakeGithub}";`,
      `const stripe = '${fakeStripe}';`,
      'const key = `-----BEGIN RSA PRIVATE KEY-----`;', // rloop-ignore-secret (test input)
      "const url = 'postgres://app:Tr0ub4dor3x@db:5432/app';", // rloop-ignore-secret (test input)
      "const dbPassword = 'Qx7!vR2#mP9zL4wT';", // rloop-ignore-secret (test input)
    ].join('\n');
    expect(scanForSecrets('src/config.ts', text).map((h) => [h.line, h.kind])).toEqual([
      [1, 'aws-access-key'],
      [2, 'github-token'],
      [3, 'stripe-key'],
      [4, 'private-key'],
      [5, 'connection-string-password'],
      [6, 'hardcoded-password'],
    ]);
  });

  it('allowlists documented examples, placeholders, environment lookups and benign high-entropy data', () => {
    const text = [
      "const example = 'AKIAIOSFODNN7EXAMPLE';",
      'const token = process.env.GITHUB_TOKEN;',
      "const password = 'changeme';",
      "apiKey: 'your-api-key-here',",
      "const sri = 'sha512-4fXb8pQz0mV3rT6yW9kL2nJ5hG8dS1aE7cR0uI4oP3kZ';",
      "const id = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';",
      "const header = { 'X-CSRF-Token': 'X-Requested-With' };",
      'const url = `postgres://${user}:${password}@host/db`;',
    ].join('\n');
    expect(scanForSecrets('src/config.ts', text)).toEqual([]);
  });

  it('reads unquoted values only in configuration files', () => {
    const env = 'SESSION_SECRET=Zq8xL2mP9vR4tW7y\n'; // rloop-ignore-secret (test input)
    expect(scanForSecrets('.env', env).map((h) => h.kind)).toEqual(['hardcoded-password']);
    expect(scanForSecrets('src/a.ts', 'const secret = loadSecretFromVault()\n')).toEqual([]);
  });

  it('measures entropy in bits per character', () => {
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('abcd')).toBe(2);
  });
});

describe('security/secrets-detector', () => {
  it('reports a committed key as a critical security finding with the secret redacted', async () => {
    const repo = fixtureRepo({
      'src/s3.ts': `export const id = '${fakeAws}';\n`,
      'src/ok.ts': 'export const id = process.env.AWS_ACCESS_KEY_ID;\n',
    });
    try {
      const result = await runCritic(secretsDetectorCritic(), {
        repoDir: repo.dir,
        commit: '0'.repeat(40),
        files: ['src/s3.ts', 'src/ok.ts'],
        phase: 'final_sweep',
      });
      expect(result.status).toBe('reported');
      const findings = result.status === 'reported' ? result.findings : [];
      expect(findings.map((f) => [f.finding_type, f.file, f.line_range.start, f.severity, f.category])).toEqual([
        ['secret/aws-access-key', 'src/s3.ts', 1, 'critical', 'security'],
      ]);
      expect(JSON.stringify(findings)).not.toContain(fakeAws);
    } finally {
      repo.remove();
    }
  });

  it('reports a literal used as a key at its use, with where it is written, and leaves a key from the environment alone', async () => {
    const repo = fixtureRepo({
      'src/auth.ts':
        "import jwt from 'jsonwebtoken';\nimport { SECRET } from './keys';\nexport const token = (id: string) => jwt.sign({ sub: id }, SECRET);\n",
      'src/keys.ts': "export const SECRET = 'shhhhh';\n",
      'src/session.ts':
        "import session from 'express-session';\nexport const mw = session({ secret: process.env.SESSION_SECRET as string });\n",
    });
    try {
      const result = await runCritic(secretsDetectorCritic(), {
        repoDir: repo.dir,
        commit: '0'.repeat(40),
        files: ['src/auth.ts', 'src/keys.ts', 'src/session.ts'],
        phase: 'final_sweep',
      });
      const findings = result.status === 'reported' ? result.findings : [];
      expect(findings.map((f) => [f.finding_type, f.file, f.line_range.start, f.severity])).toEqual([
        ['secret/hardcoded-key', 'src/auth.ts', 3, 'critical'],
      ]);
      expect(findings[0]?.related_locations).toEqual([
        { file: 'src/keys.ts', line_range: { start: 1, end: 1 }, note: 'the literal is written here' },
      ]);
      expect(findings[0]?.title).toContain('JWT signing key (jsonwebtoken)');
      expect(JSON.stringify(findings)).not.toContain('shhhhh');
    } finally {
      repo.remove();
    }
  });
});
