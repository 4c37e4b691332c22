import type { Insertable, Updateable } from 'kysely';
import type { ArtistRow } from '../../core/artists.ts';
import type { Db } from '../../db/database.ts';
import { executeNamed } from '../../db/prepared.ts';
import type { ArtistsTable } from '../../db/schema.ts';
import { ownedBy } from '../../db/scope.ts';
import { keyContains } from '../../db/text-search.ts';

export type ArtistWithCount = ArtistRow & { releases_count: number };

function withReleasesCount(db: Db) {
  return db
    .selectFrom('artists')
    .selectAll('artists')
    .select((eb) =>
      eb
        .selectFrom('releases')
        .select((inner) => inner.fn.countAll().as('n'))
        .whereRef('releases.label_id', '=', 'artists.label_id')
        .whereRef('releases.artist_id', '=', 'artists.id')
        .as('releases_count'),
    );
}

export async function findArtist(
  db: Db,
  workspaceId: number,
  id: number,
): Promise<ArtistWithCount | undefined> {
  const row = await withReleasesCount(db)
    .where(ownedBy('artists', workspaceId))
    .where('artists.id', '=', id)
    .executeTakeFirst();
  return row && { ...row, releases_count: Number(row.releases_count ?? 0) };
}

/** The workspace's artists with these ids, in the order of the ids, each with its release count. */
export async function artistsByIds(
  db: Db,
  workspaceId: number,
  ids: readonly number[],
): Promise<ArtistWithCount[]> {
  if (ids.length === 0) return [];
  const rows = await withReleasesCount(db)
    .where(ownedBy('artists', workspaceId))
    .where('artists.id', 'in', [...ids])
    .execute();
  const byId = new Map(
    rows.map((row) => [row.id, { ...row, releases_count: Number(row.releases_count ?? 0) }]),
  );
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export async function findArtistByNameKey(
  db: Db,
  workspaceId: number,
  nameKey: string,
): Promise<ArtistRow | undefined> {
  return db
    .selectFrom('artists')
    .selectAll()
    .where(ownedBy('artists', workspaceId))
    .where('name_key', '=', nameKey)
    .executeTakeFirst();
}

export async function listArtists(
  db: Db,
  workspaceId: number,
  filter: { q?: string | undefined },
  page: { limit: number; offset: number },
): Promise<{ rows: ArtistWithCount[]; total: number }> {
  let rows = withReleasesCount(db).where(ownedBy('artists', workspaceId));
  let count = db
    .selectFrom('artists')
    .select((eb) => eb.fn.countAll().as('n'))
    .where(ownedBy('artists', workspaceId));
  if (filter.q) {
    rows = rows.where(keyContains('artists.name_key', filter.q));
    count = count.where(keyContains('artists.name_key', filter.q));
  }
  // The total rides along on each row; a page past the end has no row, and only then is it counted alone.
  const found = await executeNamed(
    db,
    rows
      .select(count.as('total'))
      .orderBy('artists.name_key')
      .orderBy('artists.id')
      .limit(page.limit)
      .offset(page.offset),
  );
  const first = found[0];
  const total = first || page.offset === 0 ? (first?.total ?? 0) : (await count.executeTakeFirstOrThrow()).n;
  return {
    rows: found.map(({ total, ...row }) => ({ ...row, releases_count: Number(row.releases_count ?? 0) })),
    total: Number(total),
  };
}

export async function insertArtist(db: Db, row: Insertable<ArtistsTable>): Promise<ArtistRow> {
  return db.insertInto('artists').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateArtist(
  db: Db,
  workspaceId: number,
  id: number,
  changes: Updateable<ArtistsTable>,
): Promise<void> {
  await db
    .updateTable('artists')
    .set(changes)
    .where(ownedBy('artists', workspaceId))
    .where('id', '=', id)
    .execute();
}
