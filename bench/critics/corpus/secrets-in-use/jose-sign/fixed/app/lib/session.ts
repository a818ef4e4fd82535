import { SignJWT, jwtVerify } from 'jose';

const key = new TextEncoder().encode(process.env.SESSION_SECRET);

export async function createSession(userId: string) {
  return new SignJWT({ userId }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('7d').sign(key);
}

export async function readSession(token: string) {
  const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'] });
  return payload;
}
