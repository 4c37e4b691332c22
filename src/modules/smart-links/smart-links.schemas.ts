import { type Static, Type } from 'typebox';
import { THEMES } from '../../db/values.ts';
import { PageFields } from '../../http/pagination.ts';
import { DateTime, Id, Nullable, StringEnum } from '../../http/schemas.ts';
import { PLATFORM_KEYS } from '../platforms/index.ts';
import { CalendarDate } from '../releases/index.ts';
import { DEVICES } from './link-pages.visitor.ts';

/** At most one target per platform, so every platform has one redirect address. */
export const MAX_TARGETS = PLATFORM_KEYS.length;

const Count = Type.Integer({ minimum: 0 });
const Platform = StringEnum(PLATFORM_KEYS, { description: 'A platform key from GET /platforms' });
const TargetUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'http(s) address on the platform',
});
const Title = Type.String({ minLength: 1, maxLength: 200 });

export const TargetInput = Type.Object({ platform: Platform, url: TargetUrl });

const Targets = Type.Array(TargetInput, {
  maxItems: MAX_TARGETS,
  description: 'One per platform, shown in this order',
});

const Slug = Type.String({
  minLength: 3,
  maxLength: 64,
  pattern: '^[a-z0-9-]+$',
  description:
    'Custom address: lowercase letters, digits and hyphens, 3-64 characters, not starting or ending with a hyphen; unique across the service; a few words are reserved',
  examples: ['mira-vale-nightfall'],
});

const Accent = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'Button colour, `#rrggbb`' });
const CtaText = Type.String({ minLength: 1, maxLength: 80, description: 'The line above the buttons' });

export const SmartLink = Type.Object({
  id: Type.Integer(),
  code: Type.String({
    description: 'Short random address, always with a capital letter',
    examples: ['Kq7fM2x'],
  }),
  slug: Nullable(Slug),
  url: Type.String({ format: 'uri', description: 'The public page: SHORT_LINK_BASE/<slug or code>' }),
  enabled: Type.Boolean({
    description: 'False after DELETE: the page answers 404; PATCH `enabled: true` restores it',
  }),
  title: Type.String(),
  artist_name: Type.String(),
  release_date: CalendarDate,
  release_id: Nullable(Type.Integer()),
  presave_open: Type.Boolean({
    description: 'True while the release date is in the future: the page collects pre-save sign-ups',
  }),
  views: Count,
  clicks: Count,
  presaves: Count,
  targets: Type.Array(
    Type.Object({ id: Type.Integer(), platform: Platform, url: Type.String(), clicks: Count }),
  ),
  theme: StringEnum(THEMES, { description: '`auto` follows the visitor’s light or dark setting' }),
  accent: Nullable(Accent),
  cta_text: Nullable(CtaText),
  hide_branding: Type.Boolean(),
  created_at: DateTime,
  updated_at: DateTime,
  sandbox: Type.Optional(Type.Literal(true)),
});
export type SmartLinkView = Static<typeof SmartLink>;

export const SmartLinkBody = Type.Object({ smart_link: SmartLink });

export const SmartLinkListBody = Type.Object({ smart_links: Type.Array(SmartLink), ...PageFields });

export const SmartLinkQuery = Type.Object({
  q: Type.Optional(
    Type.String({ maxLength: 200, description: 'Part of the title or artist name, any case' }),
  ),
  enabled: Type.Optional(Type.Boolean({ description: 'Only enabled (true) or disabled (false) links' })),
  release_id: Type.Optional(Id),
});

export const CreateSmartLinkBody = Type.Object({
  title: Title,
  artist_name: Title,
  release_date: CalendarDate,
  targets: Targets,
  release_id: Type.Optional(Nullable(Id)),
});

export const PatchSmartLinkBody = Type.Object({
  enabled: Type.Optional(Type.Boolean({ description: '`true` re-enables a disabled link' })),
  title: Type.Optional(Title),
  artist_name: Type.Optional(Title),
  release_date: Type.Optional(CalendarDate),
  targets: Type.Optional(Targets),
  slug: Type.Optional(Nullable(Slug)),
  theme: Type.Optional(StringEnum(THEMES)),
  accent: Type.Optional(Nullable(Accent)),
  cta_text: Type.Optional(Nullable(CtaText)),
  hide_branding: Type.Optional(Type.Boolean()),
});
export type SmartLinkPatch = Static<typeof PatchSmartLinkBody>;

/** The fields PATCH accepts only on plans with custom link appearance (Label and above). */
export const APPEARANCE_FIELDS = ['slug', 'theme', 'accent', 'cta_text', 'hide_branding'] as const;

export const LookupBody = Type.Object({
  upc: Type.String({ minLength: 1, maxLength: 20, description: 'UPC or EAN of a release of the label' }),
});

export const LookupResult = Type.Object({
  upc: Type.String(),
  title: Type.String(),
  artist_name: Type.String(),
  cover_url: Nullable(Type.String({ format: 'uri' })),
  release_id: Type.Integer({ description: 'The release: send it as `release_id` to tie the link to it' }),
  release_date: CalendarDate,
  targets: Type.Array(TargetInput, {
    description: 'The store addresses the distributor reported for live platforms; send them unchanged',
  }),
});

const Percent = Type.Number({ minimum: 0, description: 'Rounded to one decimal' });

export const LinkStats = Type.Object({
  totals: Type.Object({
    views: Count,
    clicks: Count,
    rate_percent: Type.Number({ minimum: 0, description: 'Clicks per 100 views, one decimal' }),
    presaves: Count,
  }),
  collecting_since: DateTime,
  days: Type.Array(Type.Object({ date: CalendarDate, views: Count, clicks: Count }), {
    description: 'Every UTC day from `collecting_since` to today, oldest first',
  }),
  platforms: Type.Array(
    Type.Object({ platform: Type.String(), title: Type.String(), clicks: Count, share_percent: Percent }),
    { description: 'Clicks by platform, most first; `share_percent` of all clicks' },
  ),
  sources: Type.Array(Type.Object({ source: Type.String(), views: Count }), {
    description: '`utm_source`, else the referrer host, else `direct`; most first',
  }),
  devices: Type.Array(Type.Object({ device: StringEnum(DEVICES), views: Count })),
  languages: Type.Array(Type.Object({ language: Type.String(), views: Count }), {
    description: "Primary tag of the visitor's Accept-Language (`unknown` without one)",
  }),
});
export type LinkStatsView = Static<typeof LinkStats>;
