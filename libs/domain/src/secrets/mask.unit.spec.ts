import { describe, expect, it } from '@jest/globals';
import { REDACTED, maskSecrets, maskSecretsDeep, scanForSecrets } from '../index.js';

// Assembled at run time so this spec itself contains no key-shaped literal.
const awsKey = ['AKIA', 'Z3MSJV4WUMNRXQ7B'].join('');
const pemBody = ['MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2a', 'Qx9Lb5Vv7kTqP0wZrYh1eN6c8UjD4sHgK2fR'];
const pem =
  ['-----BEGIN RSA ', 'PRIVATE KEY-----'].join('') +
  `\n${pemBody.join('\n')}\n` +
  ['-----END RSA ', 'PRIVATE KEY-----'].join('');

describe('masking secrets with the detector’s rules', () => {
  it('given a patch deleting an AWS key and a PEM key, when masked, then neither key is left and the diff keeps its shape', () => {
    const patch = [
      'diff --git a/src/config.js b/src/config.js',
      '--- a/src/config.js',
      '+++ b/src/config.js',
      '@@ -1,8 +1,1 @@',
      `-export const accessKeyId = '${awsKey}';`,
      ...pem.split('\n').map((line) => `-${line}`),
      '+export const accessKeyId = process.env.AWS_ACCESS_KEY_ID;',
    ].join('\n');
    const masked = maskSecrets(patch);
    expect(masked).not.toContain(awsKey);
    for (const line of pemBody) expect(masked).not.toContain(line);
    expect(masked).toContain(`-export const accessKeyId = '${REDACTED}';`);
    expect(masked).toContain('+export const accessKeyId = process.env.AWS_ACCESS_KEY_ID;');
    expect(masked.split('\n')).toHaveLength(patch.split('\n').length);
  });

  it('given a PEM key in a string literal with \\n escapes or cut before its end line, when masked, then its body is gone', () => {
    const oneLine = `const key = "${pem.replace(/\n/g, '\\n')}";`;
    expect(maskSecrets(oneLine)).not.toMatch(/MIIEpAIBAAKCAQEA|Qx9Lb5Vv7k/);
    const cut = pem.split('\n').slice(0, 2).join('\n');
    expect(maskSecrets(cut)).not.toContain(pemBody[0]);
  });

  it('given everything the secrets critic reports, when the same text is masked, then every reported secret is gone', () => {
    const text = [
      "const dbPassword = 'Qx7!vR2#mP9zL4wT';", // rloop-ignore-secret (test input)
      "const url = 'postgres://app:Tr0ub4dor3x@db:5432/app';", // rloop-ignore-secret (test input)
      "const blob = 'q8ZrT2vLx9WmN4bP7sK1yH6cF3dJ0gAe5uRiOoVw';",
    ].join('\n');
    expect(scanForSecrets('src/config.ts', text).map((h) => h.kind)).toEqual([
      'hardcoded-password',
      'connection-string-password',
      'high-entropy-string',
    ]);
    const masked = maskSecrets(text);
    for (const secret of ['Qx7!vR2#mP9zL4wT', 'Tr0ub4dor3x', 'q8ZrT2vLx9WmN4bP7sK1yH6cF3dJ0gAe5uRiOoVw'])
      expect(masked).not.toContain(secret);
  });

  it('given credentials in a NATS URL, a bearer header or an unquoted setting, when masked, then only the values go', () => {
    expect(maskSecrets('connecting to nats://svc:s3cretPassw0rd@nats:4222')).toBe(
      `connecting to nats://svc:${REDACTED}@nats:4222`,
    );
    expect(maskSecrets('Authorization: Bearer abc.def-123456789')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(maskSecrets('SESSION_SECRET=Zq8xL2mP9vR4tW7y')).toBe(`SESSION_SECRET=${REDACTED}`); // rloop-ignore-secret (test input)
  });

  it('given ordinary text, configuration values that are not secrets, or text masked once already, when masked, then it is unchanged', () => {
    for (const text of [
      'round 3: 2 findings in src/a.ts:12',
      'const token = process.env.GITHUB_TOKEN;',
      'export function clamp(value, min, max) { return value; }',
      'commit 0123456789abcdef0123456789abcdef01234567',
    ]) {
      expect(maskSecrets(text)).toBe(text);
    }
    const once = maskSecrets(`key ${awsKey}\n${pem}\nnats://a:pass1234@h`);
    expect(maskSecrets(once)).toBe(once);
  });

  it('given an event’s data, when masked deeply, then every string is masked and numbers, keys and nesting are kept', () => {
    const data = {
      round: 2,
      patch: `-'${awsKey}'`,
      files: [{ file: 'src/a.ts', note: `key ${awsKey}` }],
      ok: true,
      none: null,
    };
    expect(maskSecretsDeep(data)).toEqual({
      round: 2,
      patch: `-'${REDACTED}'`,
      files: [{ file: 'src/a.ts', note: `key ${REDACTED}` }],
      ok: true,
      none: null,
    });
  });
});
