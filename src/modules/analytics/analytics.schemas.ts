import { Type } from 'typebox';
import { DSP_STAGES, RELEASE_STATUSES, REVIEW_STATUSES } from '../../db/values.ts';
import { Nullable, StringEnum } from '../../http/schemas.ts';
import { CalendarDate, DspStatus } from '../releases/index.ts';
import { DEVICES } from '../smart-links/index.ts';

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
      description:
        'Smart links made for the release (`release_id`), with their views and clicks since creation',
    },
  ),
});

export const PeriodQuery = Type.Object({
  days: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 365,
      default: 30,
      description: 'The period: this many UTC days up to and including today',
    }),
  ),
});

const Percent = Type.Number({ minimum: 0, description: 'Clicks per 100 views, one decimal' });

export const SummaryBody = Type.Object({
  period_days: Type.Integer({ minimum: 1, maximum: 365 }),
  releases: Type.Object({
    total: Count,
    by_status: countsOf(RELEASE_STATUSES),
  }),
  smart_links: Type.Object(
    {
      total: Type.Integer({ minimum: 0, description: 'Smart links of the label, enabled or not' }),
      views: Count,
      clicks: Count,
      presaves: Count,
      rate_percent: Percent,
    },
    { description: 'Views, clicks and pre-saves within the period' },
  ),
  daily: Type.Array(Type.Object({ date: CalendarDate, views: Count, clicks: Count }), {
    description: 'Every day of the period, oldest first',
  }),
  top_links: Type.Array(
    Type.Object({ id: Type.Integer(), title: Type.String(), views: Count, clicks: Count }),
    { maxItems: 10, description: 'The ten links with the most views within the period' },
  ),
});

export const TrafficBody = Type.Object({
  period_days: Type.Integer({ minimum: 1, maximum: 365 }),
  sources: Type.Array(Type.Object({ source: Type.String(), views: Count }), {
    description: '`utm_source`, else the referrer host, else `direct`; most first',
  }),
  devices: Type.Array(Type.Object({ device: StringEnum(DEVICES), views: Count }), {
    description: '`mobile`, `desktop`, `tablet` or `other`; most first',
  }),
  languages: Type.Array(Type.Object({ language: Type.String(), views: Count }), {
    description: 'Primary Accept-Language tag (`unknown` without one); most first',
  }),
  hours_utc: Type.Array(Type.Object({ hour: Type.Integer({ minimum: 0, maximum: 23 }), views: Count }), {
    description: 'All 24 hours of the day (UTC), summed over the period',
  }),
  top_links: Type.Array(Type.Object({ id: Type.Integer(), title: Type.String(), views: Count }), {
    maxItems: 10,
    description: 'The ten links with the most views within the period',
  }),
});
