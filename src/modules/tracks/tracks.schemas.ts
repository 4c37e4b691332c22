import { Type } from 'typebox';
import { DateTime, Id, Nullable, StringEnum } from '../../http/schemas.ts';

export const AI_ELEMENTS = ['vocals', 'instrumentation', 'composition', 'lyrics', 'production'] as const;
export type AiElement = (typeof AI_ELEMENTS)[number];

export const Writer = Type.Object({
  name: Type.String(),
  roles: Type.Array(Type.String(), { examples: [['Composer', 'Lyricist']] }),
});

export const Contributor = Type.Object({
  name: Type.String(),
  role: Type.String({ examples: ['Producer'] }),
});

export const FeaturedArtist = Type.Object({ name: Type.String() });

export const TrackAudio = Type.Object({
  filename: Type.String({ examples: ['night-drive.wav'] }),
  bytes: Type.Integer({ minimum: 0 }),
  duration_sec: Type.Number({ minimum: 0 }),
  sample_rate: Type.Integer({ examples: [44100] }),
  bit_depth: Nullable(Type.Integer({ examples: [24] })),
  channels: Type.Integer({ examples: [2] }),
});

export const LyricLineSchema = Type.Object(
  {
    time: Type.Number({
      minimum: 0,
      maximum: 86_400,
      description: 'Seconds from the start; kept to centiseconds',
      examples: [83.5],
    }),
    text: Type.String({ maxLength: 1000 }),
  },
  { additionalProperties: false },
);

/** A track's lyrics in all three forms; the track card's `lyrics` is null when it has none. */
export const LyricsForms = Type.Object(
  {
    text: Type.String({ description: 'Plain text; for timed lyrics, the lines joined by newlines' }),
    lines: Type.Array(LyricLineSchema, { description: 'Timed lines in time order; empty for plain text' }),
    lrc: Nullable(
      Type.String({
        description: 'The lines as LRC, `[mm:ss.xx] text`; null for plain text',
        examples: ['[01:23.50] Hello'],
      }),
    ),
  },
  { description: 'Lyrics as plain text, timed lines and LRC' },
);

/** The track card: in a release's `tracks`, in track responses, and (with `release`) in /tracks. */
export const Track = Type.Object({
  id: Type.Integer(),
  release_id: Type.Integer(),
  number: Type.Integer({ minimum: 1 }),
  title: Type.String(),
  version: Nullable(Type.String()),
  version_type: Nullable(Type.String()),
  isrc: Nullable(Type.String({ examples: ['USRC17607839'] })),
  explicit: Type.Boolean(),
  instrumental: Type.Boolean(),
  language: Nullable(Type.String({ examples: ['en'] })),
  preview_start_sec: Nullable(Type.Number({ minimum: 0 })),
  lyrics: Nullable(LyricsForms),
  writers: Type.Array(Writer),
  contributors: Type.Array(Contributor),
  featured: Type.Array(FeaturedArtist),
  audio: Nullable(TrackAudio),
  ai: Nullable(
    Type.Object({
      service: Type.String(),
      elements: Type.Array(StringEnum(AI_ELEMENTS)),
    }),
  ),
  sandbox: Type.Optional(Type.Literal(true)),
  created_at: DateTime,
  updated_at: DateTime,
});

/** Path parameters of a route on one track of a release. */
export const TrackParams = Type.Object({ id: Id, trackId: Id });

const CreditName = Type.String({ minLength: 1, maxLength: 200 });
const RoleName = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'A role from GET /api/v1/lookups/contributor-roles, by its name or a local-language name',
});

/** Most credits a track may list in one field. */
export const MAX_CREDITS = 100;

export const WritersInput = Type.Array(
  Type.Object(
    {
      name: CreditName,
      roles: Type.Array(RoleName, { minItems: 1, maxItems: 10, examples: [['Composer']] }),
    },
    { additionalProperties: false },
  ),
  {
    maxItems: MAX_CREDITS,
    description: 'Authors of the work, each with writer roles (Composer, Lyricist, Songwriter)',
  },
);

export const ContributorsInput = Type.Array(
  Type.Object({ name: CreditName, role: RoleName }, { additionalProperties: false }),
  { maxItems: MAX_CREDITS, description: 'Performers and engineers, each with one contributor role' },
);

export const FeaturedInput = Type.Array(Type.Object({ name: CreditName }, { additionalProperties: false }), {
  maxItems: MAX_CREDITS,
  description: 'Invited artists',
});

/** A response carrying one track card. */
export const TrackBody = Type.Object({ track: Track });
