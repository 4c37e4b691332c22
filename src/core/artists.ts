import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { ArtistsTable } from '../db/schema.ts';
import { ownedBy } from '../db/scope.ts';

/* The artist row, which releases and smart links name. */

export type ArtistRow = Selectable<ArtistsTable>;

export async function findArtistRow(db: Db, workspaceId: number, id: number): Promise<ArtistRow | undefined> {
  return db
    .selectFrom('artists')
    .selectAll()
    .where(ownedBy('artists', workspaceId))
    .where('id', '=', id)
    .executeTakeFirst();
}
