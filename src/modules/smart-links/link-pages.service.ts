import { createHmac } from 'node:crypto';
import { isoNow } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { coverUrl, coverVariantUrl, type VariantWidth } from '../../core/covers.ts';
import { findLabel, shareLockLabel } from '../../core/labels.ts';
import { addressSubject, linkSubject, readCache, releaseSubject } from '../../db/read-cache.ts';
import { etagOf } from '../../http/etag.ts';
import { utcDay } from '../../lib/dates.ts';
import type { MaybePromise } from '../../lib/maybe-promise.ts';
import { deriveKey, seal } from '../../lib/secret-box.ts';
import { masterSecret } from '../../master-secret.ts';
import { publish } from '../events/index.ts';
import { workspaceOfLabel } from '../labels/index.ts';
import { platformName } from '../platforms/index.ts';
import { addPresaveToLabelDay } from './label-traffic.store.ts';
import { linkCountsOf } from './link-counts.ts';
import {
  type LinkPage,
  linkPageSecurityPolicy,
  type PresaveState,
  renderLinkPage,
} from './link-pages.render.ts';
import type { Visit } from './link-pages.visitor.ts';
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

/** Width of the cover the page names first and shares: sharp on a phone at twice its CSS size. */
const PAGE_COVER_WIDTH = 640;
/** The copies a browser may choose from for the 320 px cover: at 1x, 2x and 3x screens. */
const PAGE_COVER_WIDTHS: readonly VariantWidth[] = [400, PAGE_COVER_WIDTH, 1000];

export interface OpenLink {
  /** As loaded into this process's page cache: its counters are not kept current. */
  link: PublicLinkRow;
  targets: TargetRow[];
}

/** A link's page as served to everyone: rendered once, with its Content-Security-Policy and tag. */
export interface RenderedPage {
  /** Encoded once: a string would be measured and encoded again for every view. */
  html: Buffer;
  securityPolicy: string;
  etag: string;
}

export interface ServedLink extends OpenLink {
  page: RenderedPage;
  /** When the page turns by itself (pre-saves close on the release date), in epoch ms; else null. */
  turnsAt: number | null;
}

/** Page addresses each process keeps: a page with its rows is about 7 KB, so some 35 MB at most. */
const KEPT_ADDRESSES = 5_000;
const servedLinks = readCache<ServedLink | null>('link-page', KEPT_ADDRESSES);

/**
 * The enabled link at this address with its targets and rendered page, or null: the page answers
 * 404. Kept in memory (an address that leads nowhere too) until the link, its targets, its release's
 * cover or what the address leads to changes, by any process (migration 0015), or the page turns.
 */
export function openServedLink(ctx: AppContext, address: string): MaybePromise<ServedLink | null> {
  return servedLinks(
    ctx.db,
    address,
    () => loadServedLink(ctx, address),
    (served) => subjectsOfAddress(address, served),
    (served) => served === null || served.turnsAt === null || ctx.clock.now().getTime() < served.turnsAt,
  );
}

async function loadServedLink(ctx: AppContext, address: string): Promise<ServedLink | null> {
  const open = await findEnabledLinkByAddress(ctx.db, address);
  if (!open) return null;
  const page = linkPage(ctx, open);
  const html = Buffer.from(renderLinkPage(page));
  return {
    ...open,
    page: { html, securityPolicy: linkPageSecurityPolicy(page), etag: etagOf(html) },
    turnsAt: page.presave.kind === 'form' ? Date.parse(`${open.link.release_date}T00:00:00.000Z`) : null,
  };
}

/**
 * An address leads elsewhere once a link takes it as its code or slug (a slug matches in any case);
 * what it leads to changes with the link and its release's cover.
 */
function subjectsOfAddress(address: string, served: ServedLink | null): string[] {
  const subjects = new Set([addressSubject(address), addressSubject(address.toLowerCase())]);
  if (served) {
    subjects.add(linkSubject(served.link.id));
    if (served.link.release_id !== null) subjects.add(releaseSubject(served.link.release_id));
  }
  return [...subjects];
}

/**
 * The page's own path. Its buttons and its form name their addresses by path, which the page's host
 * completes: a dozen buttons each spelling out the host would be a tenth of the page.
 */
function pagePath(config: Pick<Config, 'shortLinkBase'>, link: PublicLinkRow): string {
  return new URL(smartLinkUrl(config, link)).pathname;
}

/** The page's cover: the copy it names first and shares, and the copies a browser may choose from. */
function pageCover(baseUrl: string, link: PublicLinkRow): Pick<LinkPage, 'cover_url' | 'cover_sources'> {
  const cover = coverUrl(baseUrl, link);
  if (cover === null) return { cover_url: null, cover_sources: [] };
  return {
    cover_url: coverVariantUrl(cover, PAGE_COVER_WIDTH),
    cover_sources: PAGE_COVER_WIDTHS.map((width) => ({ url: coverVariantUrl(cover, width), width })),
  };
}

/** What the page shows: with the pre-save form while pre-saves are open. */
export function linkPage(ctx: AppContext, open: OpenLink): LinkPage {
  const { link, targets } = open;
  const path = pagePath(ctx.config, link);
  const presave: PresaveState = presaveOpen(link, ctx.clock.now())
    ? { kind: 'form', action: `${path}/presave` }
    : { kind: 'closed' };
  return {
    title: link.title,
    artist_name: link.artist_name,
    release_date: link.release_date,
    page_url: smartLinkUrl(ctx.config, link),
    ...pageCover(ctx.config.baseUrl, link),
    buttons: targets.map((target) => ({
      name: platformName(target.platform),
      // Our redirect, which counts the click on the way.
      href: `${path}/go/${target.platform}`,
    })),
    theme: link.theme,
    accent: link.accent,
    cta_text: link.cta_text,
    hide_branding: link.hide_branding === 1,
    presave,
  };
}

/** One person saw the page: counted in memory, written with the next flush (link-counts.ts). */
export function recordView(ctx: AppContext, link: PublicLinkRow, visit: Visit, client: string): void {
  linkCountsOf(ctx).countView(link, visit, client);
}

/** One person followed a button: counted in memory, written with the next flush. */
export function recordClick(ctx: AppContext, link: PublicLinkRow, target: TargetRow, client: string): void {
  linkCountsOf(ctx).countClick(link, target, client);
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
