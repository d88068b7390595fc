import { hash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: { N: number; r: number; p: number }) => Promise<Buffer>;
const SCRYPT = { N: 16384, r: 8, p: 1 };

/** A new random secret with a recognisable prefix (`glpat-...`), shown to its owner once. */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(20).toString('base64url')}`;
}

/** Tokens are stored only as this digest; a leaked database holds no usable credential. One-shot hash(): every authenticated request pays it. */
export function digestSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** scrypt runs on libuv's pool, so hashing never blocks the event loop. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, 32, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = stored?.split('$');
  if (!parts || parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, expected] = parts;
  const want = Buffer.from(expected, 'base64');
  const got = await scryptAsync(password, Buffer.from(salt, 'base64'), want.length, { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(got, want);
}
