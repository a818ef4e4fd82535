import { readFileSync } from 'node:fs';

export const signingKey = readFileSync(process.env.SIGNING_KEY_PATH ?? '/run/secrets/signing-key.pem', 'utf8');
