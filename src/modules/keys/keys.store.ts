import type { Insertable, Selectable } from 'kysely';
import type { LabelRow } from '../../core/labels.ts';
import type { Db } from '../../db/database.ts';
import { preparedQuery } from '../../db/prepared.ts';
import type { ApiKeysTable } from '../../db/schema.ts';
import { ownedBy } from '../../db/scope.ts';

export type ApiKeyRow = Selectable<ApiKeysTable>;

export async function insertKey(db: Db, row: Insertable<ApiKeysTable>): Promise<ApiKeyRow> {
  return db.insertInto('api_keys').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function prefixTaken(db: Db, prefix: string): Promise<boolean> {
  const row = await db.selectFrom('api_keys').select('id').where('prefix', '=', prefix).executeTakeFirst();
  return row !== undefined;
}

export async function listKeysOfLabel(db: Db, labelId: number): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where(ownedBy('api_keys', labelId)).orderBy('id').execute();
}

export async function findKeysByPrefix(db: Db, prefix: string): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('prefix', '=', prefix).execute();
}

export async function markKeyRevoked(db: Db, id: number, at: string): Promise<ApiKeyRow> {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Records a use of the key unless one after `unlessSince` is recorded: another process may
 * have written it, and a row rewritten for nothing is a lock and a WAL record for nothing.
 */
export async function recordKeyUse(db: Db, id: number, at: string, unlessSince: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', unlessSince)]))
    .execute();
}

export interface KeyWithLabel {
  key: ApiKeyRow;
  label: LabelRow;
  /** Id of the label's sandbox workspace, if it has one. */
  sandboxWorkspaceId: number | null;
  /** Whether the label's catalog has been copied into that sandbox. */
  sandboxCopied: boolean;
}

/** The key, its label and the id of the label's sandbox in one query, prepared once: it runs on every request. */
const selectUnrevokedKeyByHash = preparedQuery((db: Db, keyHash: string) =>
  db
    .selectFrom('api_keys as k')
    .innerJoin('labels as l', 'l.id', 'k.label_id')
    .leftJoin('labels as s', 's.parent_id', 'l.id')
    .selectAll('k')
    .select([
      'l.name as label_name',
      'l.slug as label_slug',
      'l.plan as label_plan',
      'l.contract_signed as label_contract_signed',
      'l.limit_overrides as label_limit_overrides',
      'l.commission_override as label_commission_override',
      'l.parent_id as label_parent_id',
      'l.created_at as label_created_at',
      'l.sandbox_copied_at as label_sandbox_copied_at',
      's.id as sandbox_workspace_id',
      's.sandbox_copied_at as sandbox_copied_at',
    ])
    .where('k.key_hash', '=', keyHash)
    .where('k.revoked_at', 'is', null),
);

export async function findUnrevokedKeyByHash(db: Db, keyHash: string): Promise<KeyWithLabel | undefined> {
  const [row] = await selectUnrevokedKeyByHash(db, keyHash);
  if (!row) return undefined;
  const {
    label_name,
    label_slug,
    label_plan,
    label_contract_signed,
    label_limit_overrides,
    label_commission_override,
    label_parent_id,
    label_created_at,
    label_sandbox_copied_at,
    sandbox_workspace_id,
    sandbox_copied_at,
    ...key
  } = row;
  return {
    key,
    label: {
      id: key.label_id,
      name: label_name,
      slug: label_slug,
      plan: label_plan,
      contract_signed: label_contract_signed,
      limit_overrides: label_limit_overrides,
      commission_override: label_commission_override,
      parent_id: label_parent_id,
      created_at: label_created_at,
      sandbox_copied_at: label_sandbox_copied_at,
    },
    sandboxWorkspaceId: sandbox_workspace_id,
    sandboxCopied: sandbox_copied_at !== null,
  };
}
