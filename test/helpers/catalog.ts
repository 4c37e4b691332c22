import type { Insertable } from 'kysely';
import type { ArtistsTable, ReleasesTable, TracksTable } from '../../src/db/schema.ts';
import { searchKey } from '../../src/lib/text.ts';
import type { Harness } from './harness.ts';

/**
 * Catalog rows written straight to the database, for tests whose subject is something else
 * (tracks, covers, search, reports). Tests of creating these objects go through HTTP.
 */
export async function givenArtist(
  h: Pick<Harness, 'ctx'>,
  workspaceId: number,
  input: Partial<Insertable<ArtistsTable>> = {},
): Promise<{ id: number; name: string }> {
  const at = h.ctx.clock.now().toISOString();
  const name = input.name ?? 'Mira Vale';
  return h.ctx.db
    .insertInto('artists')
    .values({
      label_id: workspaceId,
      name,
      name_key: searchKey(name),
      created_at: at,
      updated_at: at,
      ...input,
    })
    .returning(['id', 'name'])
    .executeTakeFirstOrThrow();
}

export async function givenRelease(
  h: Pick<Harness, 'ctx'>,
  workspaceId: number,
  input: Partial<Insertable<ReleasesTable>> = {},
): Promise<{ id: number; title: string; artist_id: number }> {
  const at = h.ctx.clock.now().toISOString();
  const artistId = input.artist_id ?? (await givenArtist(h, workspaceId)).id;
  const title = input.title ?? 'Night Drive';
  return h.ctx.db
    .insertInto('releases')
    .values({
      label_id: workspaceId,
      artist_id: artistId,
      type: 'single',
      title,
      title_key: searchKey(title),
      genre: 'Pop',
      release_date: '2026-06-01',
      territories: '"worldwide"',
      featured_artists: '[]',
      store_links: '{}',
      status: 'draft',
      created_at: at,
      updated_at: at,
      ...input,
    })
    .returning(['id', 'title', 'artist_id'])
    .executeTakeFirstOrThrow();
}

export async function givenTrack(
  h: Pick<Harness, 'ctx'>,
  workspaceId: number,
  releaseId: number,
  input: Partial<Insertable<TracksTable>> = {},
): Promise<{ id: number; title: string }> {
  const at = h.ctx.clock.now().toISOString();
  const title = input.title ?? 'Night Drive';
  return h.ctx.db
    .insertInto('tracks')
    .values({
      label_id: workspaceId,
      release_id: releaseId,
      number: 1,
      title,
      title_key: searchKey(title),
      explicit: 0,
      instrumental: 0,
      writers: '[]',
      contributors: '[]',
      featured: '[]',
      created_at: at,
      updated_at: at,
      ...input,
    })
    .returning(['id', 'title'])
    .executeTakeFirstOrThrow();
}
