import type { Updateable } from 'kysely';
import type { Static } from 'typebox';
import type { SmartLinksTable } from '../../db/schema.ts';
import { errors } from '../../errors.ts';
import { calendarDate, httpUrl, requireText } from '../../http/fields.ts';
import { checkSlug } from './smart-links.addresses.ts';
import type { SmartLinkPatch, TargetInput } from './smart-links.schemas.ts';

/** A link's fields as a client sends them, checked and turned into what is stored. */

export type SmartLinkTarget = Static<typeof TargetInput>;

/** One target per platform, each address checked and normalized. */
export function checkTargets(targets: readonly SmartLinkTarget[]): SmartLinkTarget[] {
  const seen = new Set<string>();
  return targets.map((target, index) => {
    if (seen.has(target.platform)) {
      throw errors.invalid(
        `targets.${index}.platform`,
        `${target.platform} is listed twice: one target per platform`,
      );
    }
    seen.add(target.platform);
    // Stored normalized: the redirect sends it as a Location header, which takes no raw spaces or non-ASCII.
    return { platform: target.platform, url: httpUrl(`targets.${index}.url`, target.url).href };
  });
}

/** The columns a PATCH changes, each field checked. */
export function linkChanges(patch: SmartLinkPatch): Updateable<SmartLinksTable> {
  const changes: Updateable<SmartLinksTable> = {};
  if (patch.title !== undefined) changes.title = requireText('title', patch.title);
  if (patch.artist_name !== undefined) changes.artist_name = requireText('artist_name', patch.artist_name);
  if (patch.release_date !== undefined)
    changes.release_date = calendarDate('release_date', patch.release_date);
  if (patch.slug !== undefined) changes.slug = patch.slug === null ? null : checkSlug(patch.slug);
  if (patch.theme !== undefined) changes.theme = patch.theme;
  if (patch.accent !== undefined) changes.accent = patch.accent?.toLowerCase() ?? null;
  if (patch.cta_text !== undefined)
    changes.cta_text = patch.cta_text === null ? null : requireText('cta_text', patch.cta_text);
  if (patch.hide_branding !== undefined) changes.hide_branding = patch.hide_branding ? 1 : 0;
  if (patch.enabled !== undefined) changes.enabled = patch.enabled ? 1 : 0;
  return changes;
}
