import { createHmac } from 'node:crypto';
import { isoNow } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { coverUrl } from '../../core/covers.ts';
import { findLabel, shareLockLabel } from '../../core/labels.ts';
import { utcDay } from '../../lib/dates.ts';
import { deriveKey, seal } from '../../lib/secret-box.ts';
import { masterSecret } from '../../master-secret.ts';
import { publish } from '../events/index.ts';
import { workspaceOfLabel } from '../labels/index.ts';
import { platformName } from '../platforms/index.ts';
import { addPresaveToLabelDay } from './label-traffic.store.ts';
import type { LinkPage, PresaveState } from './link-pages.render.ts';
import type { Visit } from './link-pages.visitor.ts';
import { addToCounters, type BreakdownCount } from './link-stats.store.ts';
import { smartLinkUrl } from './smart-links.addresses.ts';
import { presaveOpen, presentSmartLink } from './smart-links.presenter.ts';
import {
  countPresave,
  findEnabledLinkByAddress,
  insertPresave,
  type PublicLinkRow,
  type TargetRow,
  targetsOfLinks,
} from './smart-links.store.ts';

/** Width of the cover on the page: sharp on a phone at twice its CSS size. */
const PAGE_COVER_WIDTH = 640;

export interface OpenLink {
  link: PublicLinkRow;
  targets: TargetRow[];
}

/** The enabled link at this address with its targets, or null: the page answers 404. */
export async function openLink(ctx: AppContext, address: string): Promise<OpenLink | null> {
  return (await findEnabledLinkByAddress(ctx.db, address)) ?? null;
}

/** Our redirect to a target: counting the click on the way. */
function redirectUrl(config: Pick<Config, 'shortLinkBase'>, link: PublicLinkRow, platform: string): string {
  return `${smartLinkUrl(config, link)}/go/${platform}`;
}

function presaveAction(config: Pick<Config, 'shortLinkBase'>, link: PublicLinkRow): string {
  return `${smartLinkUrl(config, link)}/presave`;
}

/** What the page shows: with the pre-save form while pre-saves are open. */
export function linkPage(ctx: AppContext, open: OpenLink): LinkPage {
  const { link, targets } = open;
  const cover = coverUrl(ctx.config.baseUrl, link);
  const presave: PresaveState = presaveOpen(link, ctx.clock.now())
    ? { kind: 'form', action: presaveAction(ctx.config, link) }
    : { kind: 'closed' };
  return {
    title: link.title,
    artist_name: link.artist_name,
    release_date: link.release_date,
    page_url: smartLinkUrl(ctx.config, link),
    cover_url: cover === null ? null : `${cover}?w=${PAGE_COVER_WIDTH}`,
    buttons: targets.map((target) => ({
      platform: target.platform,
      name: platformName(target.platform),
      href: redirectUrl(ctx.config, link, target.platform),
    })),
    theme: link.theme,
    accent: link.accent,
    cta_text: link.cta_text,
    hide_branding: link.hide_branding === 1,
    presave,
  };
}

function viewBreakdown(visit: Visit, hour: string): BreakdownCount[] {
  return [
    { dimension: 'source', value: visit.source, count: 1 },
    { dimension: 'device', value: visit.device, count: 1 },
    { dimension: 'language', value: visit.language, count: 1 },
    { dimension: 'hour', value: hour, count: 1 },
  ];
}

/** One person saw the page: the link's total, its day and the day's source, device, language and hour. */
export async function recordView(ctx: AppContext, link: PublicLinkRow, visit: Visit): Promise<void> {
  const at = ctx.clock.now();
  const hour = String(at.getUTCHours()).padStart(2, '0');
  await addToCounters(ctx.db, link, {
    day: utcDay(at),
    views: 1,
    clicks: 0,
    targetId: null,
    breakdown: viewBreakdown(visit, hour),
  });
}

/** One person followed a button: the link's, the target's and the day's clicks, by platform. */
export async function recordClick(ctx: AppContext, link: PublicLinkRow, target: TargetRow): Promise<void> {
  await addToCounters(ctx.db, link, {
    day: utcDay(ctx.clock.now()),
    views: 0,
    clicks: 1,
    targetId: target.id,
    breakdown: [{ dimension: 'platform', value: target.platform, count: 1 }],
  });
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_EMAIL_LENGTH = 254;

export type PresaveOutcome = 'signed_up' | 'repeat' | 'closed' | 'invalid';

interface PresaveKeys {
  digest: Buffer;
  seal: Buffer;
}

const presaveKeys = new WeakMap<Config, PresaveKeys>();

/** Keys derived from the master secret: one names an address without revealing it, one encrypts it. */
function keysFor(config: Config): PresaveKeys {
  let keys = presaveKeys.get(config);
  if (!keys) {
    const secret = masterSecret(config);
    keys = { digest: deriveKey(secret, 'presave digests'), seal: deriveKey(secret, 'presave addresses') };
    presaveKeys.set(config, keys);
  }
  return keys;
}

export function normalizedEmail(value: string): string | null {
  const email = value.trim().toLowerCase();
  return email.length <= MAX_EMAIL_LENGTH && EMAIL.test(email) ? email : null;
}

/**
 * A pre-save sign-up from the page's form. The address is kept encrypted; a repeat sign-up (same
 * address, any case) is not counted again; `presave.signup` carries the link and its count only.
 */
export async function signUpForPresave(
  ctx: AppContext,
  link: PublicLinkRow,
  email: string,
): Promise<PresaveOutcome> {
  if (!presaveOpen(link, ctx.clock.now())) return 'closed';
  const address = normalizedEmail(email);
  if (address === null) return 'invalid';
  const keys = keysFor(ctx.config);
  const label = await findLabel(ctx.db, link.label_id);
  if (!label) return 'closed';
  const workspace = workspaceOfLabel(label);
  const at = isoNow(ctx.clock);
  return ctx.db.transaction().execute(async (trx) => {
    // The label before the link's rows, in the order every transaction that publishes takes them.
    await shareLockLabel(trx, ctx.dialect, link.label_id);
    const added = await insertPresave(trx, {
      link_id: link.id,
      label_id: link.label_id,
      email_digest: createHmac('sha256', keys.digest).update(address).digest('hex'),
      email_sealed: seal(keys.seal, address),
      created_at: at,
    });
    if (!added) return 'repeat';
    const counted = await countPresave(trx, link);
    // After the link's row, in the order a counted view takes the two.
    await addPresaveToLabelDay(trx, link.label_id, utcDay(new Date(at)));
    const targets = await targetsOfLinks(trx, link.label_id, [link.id]);
    const smartLink = presentSmartLink(ctx.config, workspace, counted, targets, ctx.clock.now());
    await publish(
      trx,
      workspace,
      'presave.signup',
      { smart_link: smartLink, presaves: smartLink.presaves },
      at,
    );
    return 'signed_up';
  });
}
