import { type Static, Type } from 'typebox';
import { PageFields } from '../../http/pagination.ts';
import { DateTime, Nullable } from '../../http/schemas.ts';
import { ReleaseListItem } from '../releases/index.ts';

const StoreUrl = Nullable(
  Type.String({ maxLength: 2048, description: 'http(s) address of the artist page; null clears it' }),
);

export const Artist = Type.Object({
  id: Type.Integer(),
  name: Type.String({ examples: ['Mira Vale'] }),
  store_a_url: StoreUrl,
  store_b_url: StoreUrl,
  releases_count: Type.Integer({ minimum: 0 }),
  created_at: DateTime,
  sandbox: Type.Optional(Type.Literal(true)),
});
export type ArtistView = Static<typeof Artist>;

export const ArtistCard = Type.Object({
  ...Artist.properties,
  releases: Type.Array(ReleaseListItem, {
    description: 'The newest 100; all of them at /artists/{id}/releases',
  }),
});

export const ArtistListBody = Type.Object({ artists: Type.Array(Artist), ...PageFields });

export const ArtistQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Part of the name, any case, any script' })),
});

export const CreateArtistBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  store_a_url: Type.Optional(StoreUrl),
  store_b_url: Type.Optional(StoreUrl),
});

export const PatchArtistBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  store_a_url: Type.Optional(StoreUrl),
  store_b_url: Type.Optional(StoreUrl),
});
