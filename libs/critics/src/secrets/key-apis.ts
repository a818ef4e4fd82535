// Where well-known APIs take a secret key: the table behind "a literal used as a key" (key-use.ts).
// Each entry names the call (a package member, a constructor, or a method on a chain a package
// started) and where its key is (an argument, or fields of an options object).

/** How a key-taking call is recognised (imports are resolved; no type checker). */
export type KeyCall =
  /** A member of an imported package (`jwt.sign`, `crypto.createHmac`; member `''` is the package called: `session({...})`). */
  | { readonly module: string | RegExp; readonly member: string | RegExp; readonly construct?: boolean }
  /** A method at the end of a chain that starts with `new X(…)` of a package (`new SignJWT(p).setIssuer(…).sign(key)`). */
  | { readonly chainFrom: { readonly module: string; readonly member: string }; readonly method: string }
  /** `app.register(plugin, { secret })`: the options of a plugin imported from one of these packages. */
  | { readonly plugin: readonly string[] }
  /** A method by name on a receiver whose text matches (`this.jwtService.sign(p, { secret })`). */
  | { readonly method: string; readonly receiver: RegExp };

/** Where the key is: an argument, or fields of the options object at that argument. */
export interface KeySlot {
  readonly arg: number;
  readonly fields?: readonly string[];
}

export interface KeyApi {
  /** What the key is for, in a finding's words. */
  readonly label: string;
  readonly call: KeyCall;
  readonly key: KeySlot;
}

/** The key-taking APIs: signing, encryption, session and HMAC keys, OAuth client secrets. */
export const KEY_APIS: readonly KeyApi[] = [
  // jsonwebtoken: sign(payload, secret), verify(token, secret)
  {
    label: 'JWT signing key (jsonwebtoken)',
    call: { module: 'jsonwebtoken', member: /^(sign|verify)$/ },
    key: { arg: 1 },
  },
  // jose
  {
    label: 'JWT verification key (jose)',
    call: { module: 'jose', member: /^(jwtVerify|jwtDecrypt|compactVerify|flattenedVerify|compactDecrypt)$/ },
    key: { arg: 1 },
  },
  {
    label: 'JWT signing key (jose)',
    call: { chainFrom: { module: 'jose', member: 'SignJWT' }, method: 'sign' },
    key: { arg: 0 },
  },
  {
    label: 'JWT encryption key (jose)',
    call: { chainFrom: { module: 'jose', member: 'EncryptJWT' }, method: 'encrypt' },
    key: { arg: 0 },
  },
  {
    label: 'JWS signing key (jose)',
    call: { chainFrom: { module: 'jose', member: 'CompactSign' }, method: 'sign' },
    key: { arg: 0 },
  },
  // express-jwt, @nestjs/jwt
  {
    label: 'JWT verification secret (express-jwt)',
    call: { module: 'express-jwt', member: /^(|expressjwt)$/ },
    key: { arg: 0, fields: ['secret'] },
  },
  {
    label: 'JWT secret (NestJS JwtModule)',
    call: { module: '@nestjs/jwt', member: /^register(Async)?$/ },
    key: { arg: 0, fields: ['secret', 'privateKey'] },
  },
  {
    label: 'JWT secret (NestJS JwtService)',
    call: { module: '@nestjs/jwt', member: 'JwtService', construct: true },
    key: { arg: 0, fields: ['secret', 'privateKey'] },
  },
  {
    label: 'JWT secret (NestJS JwtService)',
    call: { method: 'sign', receiver: /jwtService$/i },
    key: { arg: 1, fields: ['secret', 'privateKey'] },
  },
  {
    label: 'JWT secret (NestJS JwtService)',
    call: { method: 'signAsync', receiver: /jwtService$/i },
    key: { arg: 1, fields: ['secret', 'privateKey'] },
  },
  // sessions and signed cookies
  {
    label: 'session secret (express-session)',
    call: { module: 'express-session', member: '' },
    key: { arg: 0, fields: ['secret'] },
  },
  {
    label: 'cookie signing keys (cookie-session)',
    call: { module: 'cookie-session', member: '' },
    key: { arg: 0, fields: ['secret', 'keys'] },
  },
  { label: 'cookie signing secret (cookie-parser)', call: { module: 'cookie-parser', member: '' }, key: { arg: 0 } },
  {
    label: 'secret of a Fastify plugin',
    call: {
      plugin: [
        '@fastify/jwt',
        'fastify-jwt',
        '@fastify/cookie',
        'fastify-cookie',
        '@fastify/session',
        '@fastify/secure-session',
      ],
    },
    key: { arg: 1, fields: ['secret', 'key'] },
  },
  // node:crypto
  { label: 'HMAC key (crypto.createHmac)', call: { module: 'crypto', member: 'createHmac' }, key: { arg: 1 } },
  {
    label: 'cipher key (crypto.createCipheriv)',
    call: { module: 'crypto', member: /^create(Cipher|Decipher)iv$/ },
    key: { arg: 1 },
  },
  {
    label: 'secret key (crypto.createSecretKey)',
    call: { module: 'crypto', member: 'createSecretKey' },
    key: { arg: 0 },
  },
  {
    label: 'key-derivation password (crypto)',
    call: { module: 'crypto', member: /^(pbkdf2|scrypt)(Sync)?$/ },
    key: { arg: 0 },
  },
  { label: 'raw key (crypto.subtle.importKey)', call: { module: 'crypto', member: 'importKey' }, key: { arg: 1 } },
  {
    label: 'raw key (crypto.subtle.importKey)',
    call: { method: 'importKey', receiver: /(^|\.)subtle$/ },
    key: { arg: 1 },
  },
  // crypto-js, cryptr
  {
    label: 'cipher key (crypto-js)',
    call: { module: /^crypto-js(\/.*)?$/, member: /^(encrypt|decrypt)$/ },
    key: { arg: 1 },
  },
  { label: 'HMAC key (crypto-js)', call: { module: /^crypto-js(\/.*)?$/, member: /^Hmac/ }, key: { arg: 1 } },
  { label: 'encryption secret (cryptr)', call: { module: 'cryptr', member: '', construct: true }, key: { arg: 0 } },
  // passport strategies: OAuth client secrets, JWT strategy keys
  {
    label: 'OAuth client secret (passport strategy)',
    call: { module: /^(passport-|@passport-js\/|@node-saml\/passport-saml)/, member: /.*/, construct: true },
    key: { arg: 0, fields: ['clientSecret', 'consumerSecret', 'secretOrKey'] },
  },
];
