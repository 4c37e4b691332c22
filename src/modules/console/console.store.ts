import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { MembersTable } from '../../db/schema.ts';

/*
 * The console's own tables (migration 0018): members' passwords, invites, sessions and failed
 * sign-ins. Members themselves are the team's; they are read here only to sign them in.
 */

export type SignInMember = Selectable<MembersTable>;

export async function insertInvite(
  db: Db,
  row: { token_digest: string; member_id: number; created_at: string; expires_at: string },
): Promise<void> {
  await db
    .insertInto('console_invites')
    .values({ ...row, used_at: null })
    .execute();
}

/**
 * Marks the invite used and answers its member, when it was unused and not expired: in one
 * statement, so that two tabs opening the same address cannot both use it.
 */
export async function useInvite(db: Db, tokenDigest: string, now: string): Promise<SignInMember | null> {
  const used = await db
    .updateTable('console_invites')
    .set({ used_at: now })
    .where('token_digest', '=', tokenDigest)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('member_id')
    .executeTakeFirst();
  return used ? findMemberById(db, used.member_id) : null;
}

/** The invite's member while the invite can still be used (for showing its form). */
export async function findInviteMember(
  db: Db,
  tokenDigest: string,
  now: string,
): Promise<SignInMember | null> {
  const row = await db
    .selectFrom('console_invites')
    .innerJoin('members', 'members.id', 'console_invites.member_id')
    .selectAll('members')
    .where('console_invites.token_digest', '=', tokenDigest)
    .where('console_invites.used_at', 'is', null)
    .where('console_invites.expires_at', '>', now)
    .executeTakeFirst();
  return row ?? null;
}

export async function findMemberById(db: Db, memberId: number): Promise<SignInMember | null> {
  return (await db.selectFrom('members').selectAll().where('id', '=', memberId).executeTakeFirst()) ?? null;
}

/** Members with this login and a password, in any label, with their password hashes. */
export async function findPasswordsByLogin(
  db: Db,
  login: string,
): Promise<Array<{ member: SignInMember; password_hash: string }>> {
  const rows = await db
    .selectFrom('members')
    .innerJoin('member_passwords', 'member_passwords.member_id', 'members.id')
    .selectAll('members')
    .select('member_passwords.password_hash')
    .where('members.login', '=', login)
    .orderBy('members.id')
    .execute();
  return rows.map(({ password_hash, ...member }) => ({ member, password_hash }));
}

export async function savePassword(
  db: Db,
  memberId: number,
  passwordHash: string,
  now: string,
): Promise<void> {
  await db
    .insertInto('member_passwords')
    .values({ member_id: memberId, password_hash: passwordHash, set_at: now })
    .onConflict((oc) => oc.column('member_id').doUpdateSet({ password_hash: passwordHash, set_at: now }))
    .execute();
}

export async function insertSession(
  db: Db,
  tokenDigest: string,
  memberId: number,
  now: string,
): Promise<void> {
  await db
    .insertInto('console_sessions')
    .values({ token_digest: tokenDigest, member_id: memberId, created_at: now, last_seen_at: now })
    .execute();
}

export interface SessionRow {
  member: SignInMember;
  last_seen_at: string;
}

export async function findSession(db: Db, tokenDigest: string): Promise<SessionRow | null> {
  const row = await db
    .selectFrom('console_sessions')
    .innerJoin('members', 'members.id', 'console_sessions.member_id')
    .selectAll('members')
    .select('console_sessions.last_seen_at as session_seen_at')
    .where('console_sessions.token_digest', '=', tokenDigest)
    .executeTakeFirst();
  if (!row) return null;
  const { session_seen_at, ...member } = row;
  return { member, last_seen_at: session_seen_at };
}

/** The session's and its member's last activity (the member's is what `GET /team` shows). */
export async function touchSession(
  db: Db,
  tokenDigest: string,
  memberId: number,
  now: string,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('console_sessions')
      .set({ last_seen_at: now })
      .where('token_digest', '=', tokenDigest)
      .execute();
    await trx.updateTable('members').set({ last_seen_at: now }).where('id', '=', memberId).execute();
  });
}

export async function deleteSession(db: Db, tokenDigest: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('token_digest', '=', tokenDigest).execute();
}

export async function deleteSessionsOf(db: Db, memberId: number): Promise<void> {
  await db.deleteFrom('console_sessions').where('member_id', '=', memberId).execute();
}

/** Failed sign-ins in each bucket since `since`. */
export async function countFailures(
  db: Db,
  buckets: readonly string[],
  since: string,
): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('console_sign_in_failures')
    .select(['bucket', (eb) => eb.fn.countAll<number | string>().as('failures')])
    .where('bucket', 'in', buckets)
    .where('failed_at', '>', since)
    .groupBy('bucket')
    .execute();
  return new Map(rows.map((row) => [row.bucket, Number(row.failures)]));
}

/** Records a failure in each bucket, and forgets those older than `forgetBefore`. */
export async function recordFailure(
  db: Db,
  buckets: readonly string[],
  now: string,
  forgetBefore: string,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('console_sign_in_failures').where('failed_at', '<', forgetBefore).execute();
    await trx
      .insertInto('console_sign_in_failures')
      .values(buckets.map((bucket) => ({ bucket, failed_at: now })))
      .execute();
  });
}
