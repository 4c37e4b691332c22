import { Type } from 'typebox';
import { RELEASE_STATUSES } from '../../db/values.ts';
import { DateTime, Nullable, StringEnum } from '../../http/schemas.ts';

/** Items listed per remark; the counts are exact. */
export const ISSUE_LIMIT = 100;

const Count = Type.Integer({ minimum: 0 });
const Status = StringEnum(RELEASE_STATUSES);
const listOf = <T extends Parameters<typeof Type.Array>[0]>(item: T, description: string) =>
  Type.Array(item, { maxItems: ISSUE_LIMIT, description: `${description}; the first ${ISSUE_LIMIT} by id` });

const ReleaseIssue = Type.Object({ id: Type.Integer(), title: Type.String(), status: Status });

export const CatalogHealthBody = Type.Object({
  generated_at: DateTime,
  catalog: Type.Object({ releases: Count, live: Count, drafts: Count }),
  score: Type.Number({
    minimum: 0,
    maximum: 1,
    description:
      'Share of releases without remarks (a release has remarks when it, or one of its tracks, is in any issue list), rounded down to 4 places: 1 only when none has; 1 for an empty catalog',
    examples: [0.9375],
  }),
  counts: Type.Object({
    releases_without_upc: Count,
    tracks_without_isrc: Count,
    stale_drafts: Type.Integer({ minimum: 0, description: 'Drafts created more than a month ago' }),
    dsp_rejections: Type.Integer({ minimum: 0, description: 'Releases that any platform rejected' }),
    live_without_store_links: Type.Integer({
      minimum: 0,
      description: 'Live releases whose store links are not indexed yet',
    }),
    disabled_smart_links: Type.Integer({ minimum: 0, description: 'Smart links disabled by DELETE' }),
  }),
  issues: Type.Object({
    releases_without_upc: listOf(ReleaseIssue, 'Releases without a UPC (drafts get one at submission)'),
    tracks_without_isrc: listOf(
      Type.Object({
        id: Type.Integer(),
        title: Type.String(),
        release_id: Type.Integer(),
        release_title: Type.String(),
        status: Type.Unsafe<(typeof RELEASE_STATUSES)[number]>({
          ...Status,
          description: "The release's status",
        }),
      }),
      'Tracks without an ISRC',
    ),
    stale_drafts: listOf(
      Type.Object({ ...ReleaseIssue.properties, created_at: DateTime }),
      'Drafts created more than a month ago',
    ),
    dsp_rejections: listOf(
      Type.Object({
        ...ReleaseIssue.properties,
        dsps: Type.Array(Type.String({ examples: ['spotify'] }), {
          description: 'The platforms that rejected it',
        }),
      }),
      'Releases with a platform in stage rejected',
    ),
    live_without_store_links: listOf(ReleaseIssue, 'Live releases without store links'),
    disabled_smart_links: listOf(
      Type.Object({
        id: Type.Integer(),
        title: Type.String(),
        status: Type.Literal('disabled'),
        release_id: Nullable(Type.Integer()),
      }),
      'Disabled smart links: their pages answer 404',
    ),
  }),
});
