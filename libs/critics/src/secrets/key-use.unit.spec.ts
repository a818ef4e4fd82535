import { describe, expect, it } from '@jest/globals';
import { findKeyUses } from './key-use.js';

/** Runs the rule on `src/app.ts` with the other files as the repository. */
function hitsOf(text: string, others: Record<string, string> = {}, file = 'src/app.ts') {
  const files: Record<string, string> = { [file]: text, ...others };
  return findKeyUses({ file, text, read: (path) => files[path] ?? null, exists: (path) => files[path] !== undefined });
}
const lines = (text: string, others?: Record<string, string>) => hitsOf(text, others).hits.map((h) => [h.line, h.kind]);

describe('findKeyUses', () => {
  it.each([
    [
      'jsonwebtoken sign and verify',
      `import jwt from 'jsonwebtoken';\nexport const t = jwt.sign({ sub: 1 }, 'shhhhh');\njwt.verify(t, 'shhhhh');\n`,
      [
        [2, 'hardcoded-key'],
        [3, 'hardcoded-key'],
      ],
    ],
    [
      'a destructured require of jsonwebtoken',
      `const { sign } = require('jsonwebtoken');\nsign({ sub: 1 }, 'keyboard cat');\n`,
      [[2, 'hardcoded-key']],
    ],
    [
      'express-session',
      `import session from 'express-session';\napp.use(session({ secret: 'keyboard cat', resave: false }));\n`,
      [[2, 'hardcoded-key']],
    ],
    [
      'cookie-session keys',
      `const cookieSession = require('cookie-session');\napp.use(cookieSession({ name: 's', keys: ['k1', 'k2'] }));\n`,
      [[2, 'hardcoded-key']],
    ],
    [
      'cookie-parser',
      `import cookieParser from 'cookie-parser';\napp.use(cookieParser('kekse'));\n`,
      [[2, 'hardcoded-key']],
    ],
    [
      'createHmac and createCipheriv',
      `import crypto from 'node:crypto';\ncrypto.createHmac('sha256', 'pa4qacea').update('x');\nconst c = crypto.createCipheriv('aes-256-gcm', Buffer.from('0123456789abcdef0123456789abcdef'), iv);\n`,
      [
        [2, 'hardcoded-key'],
        [3, 'hardcoded-key'],
      ],
    ],
    [
      'a passport strategy client secret',
      `import { Strategy as GoogleStrategy } from 'passport-google-oauth20';\npassport.use(new GoogleStrategy({\n  clientID: 'id.apps.googleusercontent.com',\n  clientSecret: 'not-so-secret',\n}, verify));\n`,
      [[4, 'hardcoded-key']],
    ],
    [
      'passport-jwt secretOrKey',
      `const JwtStrategy = require('passport-jwt').Strategy;\npassport.use(new JwtStrategy({ jwtFromRequest, secretOrKey: 'secret' }, verify));\n`,
      [[2, 'hardcoded-key']],
    ],
    [
      'NestJS JwtModule.register and registerAsync',
      `import { JwtModule } from '@nestjs/jwt';\nexport const a = JwtModule.register({ secret: 'nest-secret' });\nexport const b = JwtModule.registerAsync({ useFactory: () => ({ secret: 'factory-secret' }) });\n`,
      [
        [2, 'hardcoded-key'],
        [3, 'hardcoded-key'],
      ],
    ],
    [
      'jose SignJWT and jwtVerify with an encoded key',
      `import { SignJWT, jwtVerify } from 'jose';\nconst key = new TextEncoder().encode('jose-secret');\nexport const t = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).sign(key);\nawait jwtVerify(t, key);\n`,
      [
        [3, 'hardcoded-key'],
        [4, 'hardcoded-key'],
      ],
    ],
    [
      'a fastify plugin secret',
      `import fastifyJwt from '@fastify/jwt';\napp.register(fastifyJwt, { secret: 'supersecret' });\n`,
      [[2, 'hardcoded-key']],
    ],
  ])('finds %s', (_name, text, expected) => {
    expect(lines(text)).toEqual(expected);
  });

  it('follows constants, object fields and constants imported from another file, naming where the literal is', () => {
    const result = hitsOf(
      `import jwt from 'jsonwebtoken';\nimport { JWT_SECRET } from './config';\nimport settings from './settings';\nconst local = { auth: { key: 'local-key' } };\njwt.sign({}, JWT_SECRET);\njwt.sign({}, settings.session.secret);\njwt.sign({}, local.auth.key);\n`,
      {
        'src/config.ts': `export const JWT_SECRET = 'from-config';\n`,
        'src/settings.js': `module.exports = {\n  session: { secret: 'from-settings' },\n};\n`,
      },
    );
    expect(result.hits.map((h) => [h.line, h.definedAt])).toEqual([
      [5, { file: 'src/config.ts', line: 1 }],
      [6, { file: 'src/settings.js', line: 2 }],
      [7, { file: 'src/app.ts', line: 4 }],
    ]);
    expect(result.deps).toEqual(['src/config.ts', 'src/settings.js']);
  });

  it('reports a literal used when the environment has no value at lower severity, and nothing for the environment alone', () => {
    expect(
      lines(
        `import jwt from 'jsonwebtoken';\njwt.sign({}, process.env.JWT_SECRET || 'dev-secret');\njwt.sign({}, process.env.JWT_SECRET as string);\njwt.sign({}, config.get('jwt.secret'));\njwt.sign({}, prod ? process.env.JWT_SECRET : 'dev');\nconst publicKey = fs ? fs.readFileSync('jwt.pub', 'utf8') : 'placeholder';\njwt.verify(t, publicKey);\n`,
      ),
    ).toEqual([
      [2, 'hardcoded-key-fallback'],
      [5, 'hardcoded-key-fallback'],
    ]);
  });

  it('ignores public keys, keys that are not literals, other APIs and test files', () => {
    expect(
      lines(
        `import jwt from 'jsonwebtoken';\njwt.verify(t, '-----BEGIN PUBLIC KEY-----\\nMIIB');\nexport function sign(secret: string) { return jwt.sign({}, secret); }\nconst hash = crypto.createHash('sha256');\nlocalThing.sign({}, 'not a key api');\n`,
      ),
    ).toEqual([]);
    expect(
      hitsOf(`import jwt from 'jsonwebtoken';\njwt.sign({}, 'test-secret');\n`, {}, 'test/helpers.ts').hits,
    ).toEqual([]);
  });

  it('redacts the value', () => {
    const [hit] = hitsOf(`import jwt from 'jsonwebtoken';\njwt.sign({}, 'a-long-enough-secret-value');\n`).hits;
    expect(hit?.redacted).toBe('a-lo…ue (26 chars)');
    expect(JSON.stringify(hit)).not.toContain('a-long-enough-secret-value');
  });
});
