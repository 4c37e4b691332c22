import type { Readable } from 'node:stream';
import { Type } from 'typebox';
import { RELEASE_STATUSES } from '../../db/values.ts';
import { PageFields, PageQuery } from '../../http/pagination.ts';
import { MAX_ID, Nullable, StringEnum } from '../../http/schemas.ts';
import { ReleaseListItem } from '../releases/index.ts';
import { Track } from '../tracks/index.ts';

/** Longer text is no one's title; a bound keeps a query from carrying kilobytes into LIKE. */
const MAX_QUERY_LENGTH = 200;

export const TrackListQuery = Type.Object({
  ...PageQuery.properties,
  isrc: Type.Optional(
    Type.String({
      maxLength: 32,
      description: 'Exact ISRC; case and hyphens do not matter',
      examples: ['USRC17607839', 'US-RC1-76-07839'],
    }),
  ),
  release_id: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_ID,
      description: "Tracks of this release, in track order; another label's release is 404",
    }),
  ),
  q: Type.Optional(
    Type.String({
      maxLength: MAX_QUERY_LENGTH,
      description: 'Part of the title, any case, any script',
      examples: ['night'],
    }),
  ),
});

export const TrackListItem = Type.Object({
  ...Track.properties,
  release: Type.Object({
    id: Type.Integer(),
    title: Type.String(),
    status: StringEnum(RELEASE_STATUSES),
    upc: Nullable(Type.String()),
    artist_name: Type.String(),
  }),
});

export const TrackListBody = Type.Object({ tracks: Type.Array(TrackListItem), ...PageFields });

export const SearchQuery = Type.Object({
  q: Type.String({
    maxLength: MAX_QUERY_LENGTH,
    description:
      'At least 2 characters besides spaces: part of a release title, artist name or track title (any case, any script), a UPC or its first digits, or an exact ISRC',
    examples: ['night', '5012345', 'USRC17607839'],
  }),
});

export const SearchBody = Type.Object({
  query: Type.String({ description: 'The query as searched: trimmed' }),
  releases: Type.Array(ReleaseListItem, {
    maxItems: 10,
    description: 'UPC matches (exact, then by prefix) first, then title matches, newest first',
  }),
  artists: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      releases_count: Type.Integer({ minimum: 0 }),
    }),
    { maxItems: 10, description: 'Name matches, newest first' },
  ),
  tracks: Type.Array(
    Type.Object({
      id: Type.Integer(),
      title: Type.String(),
      isrc: Nullable(Type.String()),
      release_id: Type.Integer(),
      release_title: Type.String(),
    }),
    { maxItems: 10, description: 'The ISRC match first, then title matches, newest first' },
  ),
});

/** The export's columns, in order (spec, "Tracks and search"). */
export const EXPORT_COLUMNS = [
  'release_id',
  'release_title',
  'artist',
  'type',
  'status',
  'release_date',
  'upc',
  'genre',
  'track_no',
  'track_title',
  'version',
  'isrc',
  'explicit',
  'language',
] as const;

/** The export is written as it is read (a stream of this text); the schema is for the OpenAPI document. */
export const CsvText = Type.Unsafe<Readable>({
  type: 'string',
  description: `UTF-8 with a byte-order mark, CRLF line ends, RFC 4180 quoting. Header row: ${EXPORT_COLUMNS.join(',')}`,
  example: `${EXPORT_COLUMNS.join(',')}\r\n12,Night Drive,Mira Vale,single,live,2026-06-01,5012345678900,Pop,1,Night Drive,,USRC17607839,false,en\r\n`,
});
