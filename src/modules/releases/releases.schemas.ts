import { Type } from 'typebox';
import { DSP_STAGES, RELEASE_STATUSES, RELEASE_TYPES, REVIEW_STATUSES } from '../../db/values.ts';
import { PageFields } from '../../http/pagination.ts';
import { DateTime, Id, Nullable, StringEnum } from '../../http/schemas.ts';
import { Track } from '../tracks/index.ts';

export const RELEASE_SORTS = ['-created_at', 'created_at', '-release_date', 'release_date', 'title'] as const;
export type ReleaseSort = (typeof RELEASE_SORTS)[number];

export const CalendarDate = Type.String({
  description: 'Date only, YYYY-MM-DD',
  examples: ['2026-06-01'],
  pattern: '^\\d{4}-\\d{2}-\\d{2}$',
});

export const Territories = Type.Union(
  [Type.Literal('worldwide'), Type.Array(Type.String({ minLength: 2, maxLength: 2 }))],
  {
    description: '`worldwide` or ISO 3166-1 alpha-2 country codes',
  },
);

export const FeaturedArtists = Type.Array(Type.Object({ name: Type.String({ minLength: 1 }) }));

const sandboxMark = { sandbox: Type.Optional(Type.Literal(true)) };

export const ReleaseListItem = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  type: StringEnum(RELEASE_TYPES),
  status: StringEnum(RELEASE_STATUSES),
  release_date: CalendarDate,
  upc: Nullable(Type.String({ examples: ['5012345678900'] })),
  genre: Type.String({ examples: ['Pop'] }),
  artist: Type.Object({ id: Type.Integer(), name: Type.String() }),
  cover_url: Nullable(
    Type.String({ format: 'uri', description: 'Our copy; append ?w=300 (or 640, 1400) for a resized one' }),
  ),
  tracks_count: Type.Integer({ minimum: 0 }),
  created_at: DateTime,
  submitted_at: Nullable(DateTime),
  updated_at: DateTime,
  ...sandboxMark,
});

export const DspStatus = Type.Object({
  dsp: Type.String({ examples: ['spotify'] }),
  stage: StringEnum(DSP_STAGES),
  detail: Nullable(Type.String()),
  updated_at: DateTime,
});

export const ReleaseCard = Type.Object({
  ...ReleaseListItem.properties,
  version: Nullable(Type.String()),
  original_release_date: Nullable(CalendarDate),
  territories: Territories,
  featured_artists: FeaturedArtists,
  review_status: Nullable(StringEnum(REVIEW_STATUSES)),
  review_comment: Nullable(Type.String()),
  store_links: Type.Record(Type.String(), Type.String(), {
    description: 'Platform key to address; empty until the release is indexed',
  }),
  is_ai_generated: Type.Boolean({ description: 'True when any track carries an AI disclosure' }),
  tracks: Type.Array(Track),
  dsp_statuses: Type.Array(DspStatus),
});

export const CreatedReleaseCard = Type.Object({
  ...ReleaseCard.properties,
  next_steps: Type.Array(Type.String(), { description: 'The calls that take the draft to submission' }),
});

export const ReleaseListBody = Type.Object({ releases: Type.Array(ReleaseListItem), ...PageFields });

export const ReleaseQuery = Type.Object({
  status: Type.Optional(StringEnum(RELEASE_STATUSES)),
  artist_id: Type.Optional(Id),
  upc: Type.Optional(Type.String({ description: 'Exact UPC or EAN' })),
  ids: Type.Optional(
    Type.String({ description: 'Comma-separated ids, at most 100', examples: ['12,15,31'] }),
  ),
  updated_since: Type.Optional(
    Type.String({ format: 'date-time', description: 'Only releases changed after it' }),
  ),
  sort: Type.Optional(StringEnum(RELEASE_SORTS, { description: 'Default -created_at' })),
});

export const CreateReleaseBody = Type.Object({
  artist_id: Id,
  type: StringEnum(RELEASE_TYPES),
  title: Type.String({ minLength: 1, maxLength: 300 }),
  version: Type.Optional(Nullable(Type.String({ maxLength: 300 }))),
  genre: Type.String({ description: 'One of GET /lookups/genres' }),
  release_date: CalendarDate,
  original_release_date: Type.Optional(Nullable(CalendarDate)),
  upc: Type.Optional(
    Nullable(
      Type.String({
        description: 'UPC-A or EAN-13 with a correct check digit; null: assigned at submission',
      }),
    ),
  ),
  territories: Type.Optional(Territories),
  featured_artists: Type.Optional(FeaturedArtists),
});

export const PatchReleaseBody = Type.Object({
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
  version: Type.Optional(Nullable(Type.String({ maxLength: 300 }))),
  genre: Type.Optional(Type.String()),
  release_date: Type.Optional(CalendarDate),
  original_release_date: Type.Optional(Nullable(CalendarDate)),
  upc: Type.Optional(Nullable(Type.String())),
  territories: Type.Optional(Territories),
});

export const HistoryEntry = Type.Object({
  status: StringEnum(RELEASE_STATUSES),
  review_status: Nullable(StringEnum(REVIEW_STATUSES)),
  comment: Nullable(Type.String()),
  at: DateTime,
});
