import { SignJWT, jwtVerify } from 'jose';

const key = new TextEncoder().encode('my-app-session-key');

export async function createSession(userId: string) {
  return new SignJWT({ userId }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('7d').sign(key); // VULN: secret/hardcoded-key
}

export async function readSession(token: string) {
  const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'] }); // VULN: secret/hardcoded-key
  return payload;
}
