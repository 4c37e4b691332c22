import { type AliasableExpression, type ExpressionBuilder, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Db } from './database.ts';
import type { Database } from './schema.ts';

/**
 * The tenant a request works in: a label, or a label's sandbox (a label row of its own). Every
 * label-owned row carries `label_id`, and every query reaches it through `ownedBy` below.
 */
export interface Workspace {
  /** The label row whose data this is: the label itself or its sandbox. */
  readonly id: number;
  /** The real label: plan, terms and team belong to it. */
  readonly labelId: number;
  readonly sandbox: boolean;
  /** False until a sandbox's first request has copied the label's catalog into it; true for a label. */
  readonly catalogCopied: boolean;
}

/** Tables whose rows belong to one label (or sandbox) through `label_id`. */
export type LabelOwnedTable = {
  [T in keyof Database]: Database[T] extends { label_id: number } ? T : never;
}[keyof Database];

/**
 * The one tenancy condition: `table.label_id` is the owner's id. Use it in every query of a
 * label-owned table, as `.where(ownedBy('members', workspace.id))`.
 */
export function ownedBy(table: LabelOwnedTable, ownerId: number): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref(`${table}.label_id`)} = ${ownerId}`;
}

/** A scalar count over one label's rows, composable into a single query of several counts. */
export type LabelCount = (
  eb: ExpressionBuilder<Database, never>,
  labelId: number,
) => AliasableExpression<unknown>;

/** Runs one LabelCount as its own query. */
export async function countFor(db: Db, count: LabelCount, labelId: number): Promise<number> {
  const row = await db.selectNoFrom((eb) => count(eb, labelId).as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Tables whose rows operators, the distributor and job payloads name by id alone. */
export type AddressedTable = 'releases' | 'support_requests' | 'withdrawals';

/**
 * The owner (`label_id`) of a row named by id alone, across labels: the one lookup that reads a
 * label-owned row without a workspace. Everything after it is scoped to the owner it returns.
 */
export async function ownerOf(db: Db, table: AddressedTable, id: number): Promise<number | undefined> {
  const row = await db.selectFrom(table).select('label_id').where('id', '=', id).executeTakeFirst();
  return row?.label_id;
}
