import { type ExpressionBuilder, type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { readJsonRows } from '../../db/json-column.ts';
import { jsonRows } from '../../db/portable.ts';
import { executeNamed, preparedQuery } from '../../db/prepared.ts';
import type { Database, SmartLinksTable, SmartLinkTargetsTable } from '../../db/schema.ts';
import { ownedBy } from '../../db/scope.ts';
import { keyContains } from '../../db/text-search.ts';
import type { CoverFormat } from '../../db/values.ts';

export type SmartLinkRow = Selectable<SmartLinksTable>;
export type TargetRow = Selectable<SmartLinkTargetsTable>;

export interface SmartLinkFilter {
  q?: string | undefined;
  enabled?: boolean | undefined;
  releaseId?: number | undefined;
}

export async function insertSmartLink(db: Db, row: Insertable<SmartLinksTable>): Promise<SmartLinkRow> {
  return db.insertInto('smart_links').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findSmartLink(
  db: Db,
  workspaceId: number,
  id: number,
): Promise<SmartLinkRow | undefined> {
  return db
    .selectFrom('smart_links')
    .selectAll()
    .where(ownedBy('smart_links', workspaceId))
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function updateSmartLink(
  db: Db,
  workspaceId: number,
  id: number,
  changes: Updateable<SmartLinksTable>,
): Promise<SmartLinkRow> {
  return db
    .updateTable('smart_links')
    .set(changes)
    .where(ownedBy('smart_links', workspaceId))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export interface LinkWithTargets {
  link: SmartLinkRow;
  targets: TargetRow[];
}

/**
 * A page of links with their targets and the number the filter matches, in one statement: the
 * total rides along on each row; a page past the end has no row, and only then is it counted alone.
 */
export async function listSmartLinks(
  db: Db,
  workspaceId: number,
  filter: SmartLinkFilter,
  page: { limit: number; offset: number },
): Promise<{ rows: LinkWithTargets[]; total: number }> {
  let query = db.selectFrom('smart_links').where(ownedBy('smart_links', workspaceId));
  if (filter.q !== undefined) query = query.where(keyContains('smart_links.search_key', filter.q));
  if (filter.enabled !== undefined) query = query.where('enabled', '=', filter.enabled ? 1 : 0);
  if (filter.releaseId !== undefined) query = query.where('release_id', '=', filter.releaseId);
  const count = query.select((eb) => eb.fn.countAll<number | string>().as('n'));
  const found = await executeNamed(
    db,
    query
      .selectAll('smart_links')
      .select((eb) => targetsOf(db, eb).as('targets'))
      .select(count.as('total'))
      .orderBy('smart_links.id', 'desc')
      .limit(page.limit)
      .offset(page.offset),
  );
  const first = found[0];
  const total = first || page.offset === 0 ? (first?.total ?? 0) : (await count.executeTakeFirstOrThrow()).n;
  return {
    rows: found.map(({ targets, total, ...link }) => ({ link, targets: readJsonRows(targets) })),
    total: Number(total),
  };
}

/** The targets of these links of the workspace, each link's in its order. */
export async function targetsOfLinks(
  db: Db,
  workspaceId: number,
  linkIds: readonly number[],
): Promise<TargetRow[]> {
  if (linkIds.length === 0) return [];
  return db
    .selectFrom('smart_link_targets')
    .selectAll()
    .where(ownedBy('smart_link_targets', workspaceId))
    .where('link_id', 'in', [...linkIds])
    .orderBy('link_id')
    .orderBy('position')
    .execute();
}

export async function insertTargets(db: Db, rows: Insertable<SmartLinkTargetsTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('smart_link_targets').values(rows).execute();
}

export async function deleteTargets(db: Db, workspaceId: number, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .deleteFrom('smart_link_targets')
    .where(ownedBy('smart_link_targets', workspaceId))
    .where('id', 'in', [...ids])
    .execute();
}

export async function updateTarget(
  db: Db,
  workspaceId: number,
  id: number,
  changes: { position: number; url: string },
): Promise<void> {
  await db
    .updateTable('smart_link_targets')
    .set(changes)
    .where(ownedBy('smart_link_targets', workspaceId))
    .where('id', '=', id)
    .execute();
}

/** Links of one release, for its analytics summary. */
export async function smartLinksOfRelease(db: Db, workspaceId: number, releaseId: number) {
  return db
    .selectFrom('smart_links')
    .selectAll()
    .where(ownedBy('smart_links', workspaceId))
    .where('release_id', '=', releaseId)
    .orderBy('id')
    .execute();
}

/** Disabled links, for the catalog health report: how many, and the first `limit` by id. */
export async function disabledSmartLinks(db: Db, workspaceId: number, limit: number) {
  const disabled = db
    .selectFrom('smart_links')
    .where(ownedBy('smart_links', workspaceId))
    .where('enabled', '=', 0);
  const [rows, count] = await Promise.all([
    disabled.select(['id', 'title', 'release_id']).orderBy('id').limit(limit).execute(),
    disabled.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst(),
  ]);
  return { rows, count: Number(count?.n ?? 0) };
}

export async function codeTaken(db: Db, code: string): Promise<boolean> {
  const row = await db.selectFrom('smart_links').select('id').where('code', '=', code).executeTakeFirst();
  return row !== undefined;
}

export async function slugTaken(db: Db, slug: string, exceptId: number): Promise<boolean> {
  const row = await db
    .selectFrom('smart_links')
    .select('id')
    .where('slug', '=', slug)
    .where('id', '!=', exceptId)
    .executeTakeFirst();
  return row !== undefined;
}

export type PublicLinkRow = SmartLinkRow & { cover_hash: string | null; cover_format: CoverFormat | null };

/** Every column of a target, named: SQLite builds a JSON object of the targets field by field. */
const TARGET_COLUMNS = [
  'smart_link_targets.id',
  'smart_link_targets.link_id',
  'smart_link_targets.label_id',
  'smart_link_targets.position',
  'smart_link_targets.platform',
  'smart_link_targets.url',
  'smart_link_targets.clicks',
] as const satisfies readonly `smart_link_targets.${keyof SmartLinkTargetsTable}`[];

/** A link's targets in order, as a JSON array column of a query of `smart_links`. */
function targetsOf(db: Db, eb: ExpressionBuilder<Database, 'smart_links'>) {
  return jsonRows(
    db,
    eb
      .selectFrom('smart_link_targets')
      .select(TARGET_COLUMNS)
      .whereRef('smart_link_targets.label_id', '=', 'smart_links.label_id')
      .whereRef('smart_link_targets.link_id', '=', 'smart_links.id')
      .orderBy('smart_link_targets.position'),
  );
}

/**
 * An enabled link by its address, with its release's cover and its targets in order, in one
 * statement (it runs on every page view): the link with this code, else the one with this slug
 * (any case). A code wins: a slug spelling another link's code in lowercase must not take over that
 * link's page.
 */
const selectEnabledLinkByAddress = preparedQuery((db: Db, code: string, slug: string) =>
  db
    .selectFrom('smart_links')
    .leftJoin('releases', (join) =>
      join
        .onRef('releases.id', '=', 'smart_links.release_id')
        .onRef('releases.label_id', '=', 'smart_links.label_id'),
    )
    .selectAll('smart_links')
    .select(['releases.cover_hash', 'releases.cover_format'])
    .select((eb) => targetsOf(db, eb).as('targets'))
    .where((eb) => eb.or([eb('smart_links.code', '=', code), eb('smart_links.slug', '=', slug)]))
    .where('smart_links.enabled', '=', 1)
    .orderBy(sql`case when smart_links.code = ${code} then 0 else 1 end`)
    .limit(1),
);

export async function findEnabledLinkByAddress(
  db: Db,
  address: string,
): Promise<{ link: PublicLinkRow; targets: TargetRow[] } | undefined> {
  const [row] = await selectEnabledLinkByAddress(db, address, address.toLowerCase());
  if (!row) return undefined;
  const { targets, ...link } = row;
  return { link, targets: readJsonRows(targets) };
}

/** Records a sign-up; false when this address had already signed up for the link. */
export async function insertPresave(
  db: Db,
  row: { link_id: number; label_id: number; email_digest: string; email_sealed: string; created_at: string },
): Promise<boolean> {
  const inserted = await db
    .insertInto('smart_link_presaves')
    .values(row)
    .onConflict((oc) => oc.columns(['link_id', 'email_digest']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function countPresave(db: Db, link: { id: number; label_id: number }): Promise<SmartLinkRow> {
  return db
    .updateTable('smart_links')
    .set((eb) => ({ presaves: eb('presaves', '+', 1) }))
    .where(ownedBy('smart_links', link.label_id))
    .where('id', '=', link.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function smartLinkTotalCount(db: Db, workspaceId: number): Promise<number> {
  const row = await db
    .selectFrom('smart_links')
    .select((eb) => eb.fn.countAll().as('n'))
    .where(ownedBy('smart_links', workspaceId))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
