import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { IdempotencyKeysTable } from '../db/schema.ts';

export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

export interface IdempotencyId {
  apiKeyId: number;
  key: string;
}

/** A claim is told apart from a later takeover of the same key by the time it was made. */
export interface IdempotencyClaim extends IdempotencyId {
  claimedAt: string;
}

/** Claims the key for a new execution; false when a row for it already exists. */
export async function claimIdempotencyKey(
  db: Db,
  id: IdempotencyId,
  requestHash: string,
  now: string,
): Promise<boolean> {
  const result = await db
    .insertInto('idempotency_keys')
    .values({
      api_key_id: id.apiKeyId,
      idempotency_key: id.key,
      request_hash: requestHash,
      state: 'running',
      status_code: null,
      headers: null,
      body: null,
      created_at: now,
    })
    .onConflict((oc) => oc.columns(['api_key_id', 'idempotency_key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function findIdempotencyRow(db: Db, id: IdempotencyId): Promise<IdempotencyRow | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('api_key_id', '=', id.apiKeyId)
    .where('idempotency_key', '=', id.key)
    .executeTakeFirst();
}

/** Removes the row only if it is still the one that was read (created at `createdAt`). */
export async function deleteIdempotencyRow(db: Db, id: IdempotencyId, createdAt: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('api_key_id', '=', id.apiKeyId)
    .where('idempotency_key', '=', id.key)
    .where('created_at', '=', createdAt)
    .execute();
}

/** Gives the key back after a failure that must not be replayed (5xx, or a body that is not text). */
export async function releaseClaim(db: Db, claim: IdempotencyClaim): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('api_key_id', '=', claim.apiKeyId)
    .where('idempotency_key', '=', claim.key)
    .where('created_at', '=', claim.claimedAt)
    .where('state', '=', 'running')
    .execute();
}

export async function storeIdempotentResponse(
  db: Db,
  claim: IdempotencyClaim,
  response: { status: number; headers: Record<string, string>; body: string },
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({
      state: 'done',
      status_code: response.status,
      headers: JSON.stringify(response.headers),
      body: response.body,
    })
    .where('api_key_id', '=', claim.apiKeyId)
    .where('idempotency_key', '=', claim.key)
    .where('created_at', '=', claim.claimedAt)
    .where('state', '=', 'running')
    .execute();
}

export async function deleteIdempotencyRowsBefore(db: Db, before: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('created_at', '<', before).execute();
}
