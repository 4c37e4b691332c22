import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { MembersTable } from '../../db/schema.ts';
import { ownedBy } from '../../db/scope.ts';

export type MemberRow = Selectable<MembersTable>;

export async function insertMember(db: Db, row: Insertable<MembersTable>): Promise<MemberRow> {
  return db.insertInto('members').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findMemberByLogin(
  db: Db,
  labelId: number,
  login: string,
): Promise<MemberRow | undefined> {
  return db
    .selectFrom('members')
    .selectAll()
    .where(ownedBy('members', labelId))
    .where('login', '=', login)
    .executeTakeFirst();
}

export async function listMembers(
  db: Db,
  labelId: number,
  page: { limit: number; offset: number },
): Promise<MemberRow[]> {
  return db
    .selectFrom('members')
    .selectAll()
    .where(ownedBy('members', labelId))
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

/** Removes the member; their console password, invites and sessions go with them (migration 0018). */
export async function deleteMember(db: Db, labelId: number, memberId: number): Promise<void> {
  await db.deleteFrom('members').where(ownedBy('members', labelId)).where('id', '=', memberId).execute();
}
