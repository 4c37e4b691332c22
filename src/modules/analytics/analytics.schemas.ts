import { Type } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../../http/schemas.ts';
import {
  CalendarDate,
  DSP_STAGES,
  DspStatus,
  RELEASE_STATUSES,
  REVIEW_STATUSES,
} from '../releases/releases.schemas.ts';

const Count = Type.Integer({ minimum: 0 });

const countsOf = <K extends string>(keys: readonly K[]) =>
  Type.Object(Object.fromEntries(keys.map((key) => [key, Count])) as Record<K, typeof Count>);

/** One smart link of the release, as the release summary lists it. */
export const ReleaseSmartLink = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  url: Type.String({ format: 'uri', description: 'The public page' }),
  enabled: Type.Boolean(),
  views: Count,
  clicks: Count,
});

export const ReleaseAnalyticsBody = Type.Object({
  release: Type.Object({
    id: Type.Integer(),
    title: Type.String(),
    status: StringEnum(RELEASE_STATUSES),
    upc: Nullable(Type.String()),
    release_date: CalendarDate,
    live_at: Nullable(
      Type.String({
        format: 'date-time',
        description: 'When a first platform reported it live; null before',
      }),
    ),
    sandbox: Type.Optional(Type.Literal(true)),
  }),
  review_status: Nullable(StringEnum(REVIEW_STATUSES)),
  platforms: Type.Object({
    total: Type.Integer({
      minimum: 0,
      description: 'Platforms that have reported a stage for the release: the sum of `by_stage`',
    }),
    by_stage: countsOf(DSP_STAGES),
    statuses: Type.Array(DspStatus, { description: 'Each platform with its stage, by platform key' }),
  }),
  store_links: Type.Record(Type.String(), Type.String(), {
    description: 'Platform key to address; empty until the release is indexed',
  }),
  smart_links: Type.Object(
    {
      total: Count,
      views: Count,
      clicks: Count,
      items: Type.Array(ReleaseSmartLink),
    },
    {
      description: 'Smart links made for the release, with their totals; none yet: smart links are not built',
    },
  ),
});
