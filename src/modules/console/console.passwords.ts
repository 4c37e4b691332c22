import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/*
 * Members' console passwords, hashed with scrypt (node:crypto: no native dependency to build). The
 * stored form names its parameters, so they can be raised later without breaking older hashes.
 */

export const MIN_PASSWORD_LENGTH = 12;
/** Passwords longer than this are refused: hashing a megabyte on every attempt is a way to stall us. */
export const MAX_PASSWORD_LENGTH = 256;

/**
 * One of OWASP's equivalent scrypt settings (N=2^15, r=8, p=3): 32 MB a hash rather than the 128 MB
 * of N=2^17, p=1, since several sign-ins may hash at once on the libuv pool.
 */
const COST = 2 ** 15;
const BLOCK_SIZE = 8;
const PARALLELISM = 3;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const maxmem = 256 * (options.N ?? COST) * (options.r ?? BLOCK_SIZE);
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { ...options, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, { N: COST, r: BLOCK_SIZE, p: PARALLELISM });
  return [
    'scrypt',
    COST,
    BLOCK_SIZE,
    PARALLELISM,
    salt.toString('base64url'),
    key.toString('base64url'),
  ].join('$');
}

/** Compared in constant time; a stored value in another form never matches. */
export async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const [scheme, cost, blockSize, parallelism, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const derived = await derive(password, Buffer.from(salt, 'base64url'), {
    N: Number(cost),
    r: Number(blockSize),
    p: Number(parallelism),
  });
  return derived.length === expected.length && timingSafeEqual(derived, expected);
}

/**
 * Hashed once per process and compared against when the login is unknown, so that an unknown login
 * takes as long as a wrong password and the answer's timing tells nothing.
 */
let decoy: Promise<string> | null = null;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}
