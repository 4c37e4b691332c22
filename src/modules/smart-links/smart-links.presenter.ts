import type { Config } from '../../config.ts';
import type { Workspace } from '../../db/scope.ts';
import { utcDay } from '../../lib/dates.ts';
import { smartLinkUrl } from './smart-links.addresses.ts';
import type { SmartLinkTarget } from './smart-links.fields.ts';
import type { SmartLinkView } from './smart-links.schemas.ts';
import type { SmartLinkRow, TargetRow } from './smart-links.store.ts';

/** Pre-saves are open while the release date is after today (UTC). */
export function presaveOpen(link: Pick<SmartLinkRow, 'release_date'>, now: Date): boolean {
  return link.release_date > utcDay(now);
}

export function presentSmartLink(
  config: Pick<Config, 'shortLinkBase'>,
  workspace: Workspace,
  row: SmartLinkRow,
  targets: readonly TargetRow[],
  now: Date,
): SmartLinkView {
  return {
    id: row.id,
    code: row.code,
    slug: row.slug,
    url: smartLinkUrl(config, row),
    enabled: row.enabled === 1,
    title: row.title,
    artist_name: row.artist_name,
    release_date: row.release_date,
    release_id: row.release_id,
    presave_open: presaveOpen(row, now),
    views: Number(row.views),
    clicks: Number(row.clicks),
    presaves: Number(row.presaves),
    targets: targets.map((target) => ({
      id: target.id,
      platform: target.platform as SmartLinkTarget['platform'],
      url: target.url,
      clicks: Number(target.clicks),
    })),
    theme: row.theme,
    accent: row.accent,
    cta_text: row.cta_text,
    hide_branding: row.hide_branding === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
    ...(workspace.sandbox && { sandbox: true as const }),
  };
}
