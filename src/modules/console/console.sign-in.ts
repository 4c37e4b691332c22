import { createHash, randomBytes } from 'node:crypto';
import { isoNow } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { addressBucket } from '../../lib/ip-allow-list.ts';
import {
  decoyHash,
  hashPassword,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  passwordMatches,
} from './console.passwords.ts';
import {
  countFailures,
  deleteSession,
  findInviteMember,
  findPasswordsByLogin,
  findSession,
  insertInvite,
  insertSession,
  recordFailure,
  type SignInMember,
  savePassword,
  touchSession,
  useInvite,
} from './console.store.ts';

/*
 * How a member gets into the console: a one-time invite address (from the command line) where they
 * choose a password and are signed in; then login and password. A session is a random token in a
 * cookie, stored as its digest in the database, so that every process honours it and a removed
 * member's sessions end with the member.
 */

const MINUTE_MS = 60_000;
export const INVITE_VALID_MS = 7 * 24 * 60 * MINUTE_MS;
/** A session unused this long has ended. */
export const SESSION_IDLE_MS = 12 * 60 * MINUTE_MS;
/** Activity is written at most this often per session: a page view should not always be a write. */
const TOUCH_EVERY_MS = MINUTE_MS;
/** Failed sign-ins one address, or one login, may make in SIGN_IN_WINDOW_MS. */
export const SIGN_IN_FAILURES_ALLOWED = 10;
export const SIGN_IN_WINDOW_MS = 15 * MINUTE_MS;

const digest = (token: string) => createHash('sha256').update(token).digest('base64url');
const newToken = () => randomBytes(32).toString('base64url');

export function inviteUrl(config: Pick<Config, 'baseUrl'>, token: string): string {
  return `${config.baseUrl}/console/invite/${token}`;
}

/** A fresh one-time address for the member; earlier ones stay valid until used or expired. */
export async function createInvite(
  ctx: AppContext,
  memberId: number,
): Promise<{ invite_url: string; expires_at: string }> {
  const token = newToken();
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + INVITE_VALID_MS).toISOString();
  await insertInvite(ctx.db, {
    token_digest: digest(token),
    member_id: memberId,
    created_at: now.toISOString(),
    expires_at: expiresAt,
  });
  return { invite_url: inviteUrl(ctx.config, token), expires_at: expiresAt };
}

/** The member an invite address is for, while it can be used. */
export function inviteMember(ctx: AppContext, token: string): Promise<SignInMember | null> {
  return findInviteMember(ctx.db, digest(token), isoNow(ctx.clock));
}

export type PasswordProblem = 'too_short' | 'too_long' | 'mismatch';

export function passwordProblem(password: string, confirmation: string): PasswordProblem | null {
  if ([...password].length < MIN_PASSWORD_LENGTH) return 'too_short';
  if (password.length > MAX_PASSWORD_LENGTH) return 'too_long';
  return password === confirmation ? null : 'mismatch';
}

/**
 * Uses the invite: sets the member's password and opens a session (answered as its token), or null
 * when the address was used or has expired meanwhile.
 */
export async function acceptInvite(ctx: AppContext, token: string, password: string): Promise<string | null> {
  const passwordHash = await hashPassword(password);
  const now = isoNow(ctx.clock);
  return ctx.db.transaction().execute(async (trx) => {
    const member = await useInvite(trx, digest(token), now);
    if (!member) return null;
    await savePassword(trx, member.id, passwordHash, now);
    const session = newToken();
    await insertSession(trx, digest(session), member.id, now);
    return session;
  });
}

export type SignInOutcome =
  | { kind: 'signed_in'; session: string }
  | { kind: 'refused' }
  | { kind: 'limited'; retryAfterS: number };

const failureBuckets = (login: string, address: string) => [
  `address:${addressBucket(address)}`,
  `login:${login.toLowerCase()}`,
];

/**
 * Login and password, from a client address. An unknown login and a wrong password are refused
 * alike, and take as long; after SIGN_IN_FAILURES_ALLOWED failures in the window, from the address
 * or for the login, attempts are refused before the password is checked.
 */
export async function signIn(
  ctx: AppContext,
  login: string,
  password: string,
  address: string,
): Promise<SignInOutcome> {
  const now = ctx.clock.now();
  const buckets = failureBuckets(login.trim(), address);
  const since = new Date(now.getTime() - SIGN_IN_WINDOW_MS).toISOString();
  const failures = await countFailures(ctx.db, buckets, since);
  if (buckets.some((bucket) => (failures.get(bucket) ?? 0) >= SIGN_IN_FAILURES_ALLOWED)) {
    return { kind: 'limited', retryAfterS: SIGN_IN_WINDOW_MS / 1000 };
  }
  const member = await matchingMember(ctx, login.trim(), password);
  if (!member) {
    await recordFailure(ctx.db, buckets, now.toISOString(), since);
    return { kind: 'refused' };
  }
  const session = newToken();
  await insertSession(ctx.db, digest(session), member.id, now.toISOString());
  return { kind: 'signed_in', session };
}

async function matchingMember(
  ctx: AppContext,
  login: string,
  password: string,
): Promise<SignInMember | null> {
  if (password.length > MAX_PASSWORD_LENGTH) return null;
  const candidates = await findPasswordsByLogin(ctx.db, login);
  if (candidates.length === 0) {
    await passwordMatches(password, await decoyHash());
    return null;
  }
  for (const candidate of candidates) {
    if (await passwordMatches(password, candidate.password_hash)) return candidate.member;
  }
  return null;
}

/**
 * The member signed in with this session token, or null when it is unknown, ended, or idle for
 * SESSION_IDLE_MS. Activity moves the session's and the member's `last_seen_at`.
 */
export async function sessionMember(ctx: AppContext, token: string): Promise<SignInMember | null> {
  const tokenDigest = digest(token);
  const session = await findSession(ctx.db, tokenDigest);
  if (!session) return null;
  const now = ctx.clock.now();
  const idleMs = now.getTime() - Date.parse(session.last_seen_at);
  if (idleMs >= SESSION_IDLE_MS) {
    await deleteSession(ctx.db, tokenDigest);
    return null;
  }
  if (idleMs >= TOUCH_EVERY_MS || session.member.last_seen_at === null) {
    await touchSession(ctx.db, tokenDigest, session.member.id, now.toISOString());
  }
  return session.member;
}

export function endSession(ctx: AppContext, token: string): Promise<void> {
  return deleteSession(ctx.db, digest(token));
}
