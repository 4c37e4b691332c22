import type { IncomingHttpHeaders } from 'node:http';
import { isbot } from 'isbot';
import UAParser from 'ua-parser-js';
import { remembered } from '../../lib/remembered.ts';

export type Device = 'mobile' | 'desktop' | 'tablet' | 'other';

export const DEVICES: readonly Device[] = ['mobile', 'desktop', 'tablet', 'other'];

export interface Visit {
  source: string;
  device: Device;
  language: string;
}

const MAX_SOURCE_LENGTH = 64;
/** The longest a DNS name can be; a longer referrer host is not a real one. */
const MAX_HOST_LENGTH = 253;

/** A header as one string: Node gives repeated headers as arrays, and a missing one as undefined. */
function headerText(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  if (Array.isArray(value)) return value.join(',');
  return value ?? '';
}

function isPrefetch(headers: IncomingHttpHeaders): boolean {
  const purpose = `${headerText(headers, 'sec-purpose')},${headerText(headers, 'purpose')}`.toLowerCase();
  return (
    purpose.includes('prefetch') ||
    headerText(headers, 'x-moz').toLowerCase().includes('prefetch') ||
    headerText(headers, 'x-purpose').toLowerCase().includes('preview')
  );
}

/**
 * True when the request is a person opening the page. Link-preview fetchers (chat apps, social
 * networks), crawlers, command-line clients such as curl (isbot counts them as bots) and browsers
 * prefetching a link nobody has tapped yet would otherwise inflate the view counts.
 */
export function isPersonVisit(method: string, headers: IncomingHttpHeaders): boolean {
  if (method.toUpperCase() === 'HEAD' || isPrefetch(headers)) return false;
  const userAgent = headerText(headers, 'user-agent').trim();
  return userAgent !== '' && !isBotAgent(userAgent);
}

/** isbot's pattern is long, and most views of a link come from a handful of browser versions. */
const isBotAgent = remembered(500, isbot);

export function describeVisit(
  headers: IncomingHttpHeaders,
  utmSource: string | undefined,
  ownHosts: readonly string[],
): Visit {
  return {
    source: utmSourceName(utmSource) ?? referringSite(ownHosts)(headerText(headers, 'referer')) ?? 'direct',
    device: deviceOf(headerText(headers, 'user-agent').trim()),
    language: languageOf(headerText(headers, 'accept-language')),
  };
}

function utmSourceName(utmSource: string | undefined): string | undefined {
  // Control characters (a NUL would be refused by PostgreSQL) are no part of a source's name.
  const name =
    utmSource
      ?.replace(/\p{Cc}/gu, '')
      .trim()
      .toLowerCase() ?? '';
  if (name === '') return undefined;
  // By code points, so a cut never leaves half of a surrogate pair behind.
  return Array.from(name).slice(0, MAX_SOURCE_LENGTH).join('');
}

function withoutWww(host: string): string {
  return host.toLowerCase().replace(/^www\./, '');
}

/** The referring site, or undefined when there is none worth counting (invalid, or our own pages). */
function refererHost(referer: string, ownHosts: readonly string[]): string | undefined {
  const url = parseHttpUrl(referer.trim());
  if (!url) return undefined;
  const own = new Set(ownHosts.map(withoutWww));
  if (own.has(withoutWww(url.host)) || own.has(withoutWww(url.hostname))) return undefined;
  const host = withoutWww(url.hostname);
  return host.length <= MAX_HOST_LENGTH ? host : undefined;
}

const referringSites = new WeakMap<readonly string[], (referer: string) => string | undefined>();

/** `refererHost` for these hosts of ours, remembered: a link's views come from a few sites' addresses. */
function referringSite(ownHosts: readonly string[]): (referer: string) => string | undefined {
  let site = referringSites.get(ownHosts);
  if (!site) {
    site = remembered(500, (referer) => refererHost(referer, ownHosts));
    referringSites.set(ownHosts, site);
  }
  return site;
}

function parseHttpUrl(text: string): URL | undefined {
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' ? url : undefined;
}

const DESKTOP_SYSTEMS = new Set([
  'windows',
  'mac os',
  'macos',
  'linux',
  'chromium os',
  'ubuntu',
  'debian',
  'fedora',
  'mint',
  'arch',
  'manjaro',
  'opensuse',
  'suse',
  'centos',
  'red hat',
  'gentoo',
  'kubuntu',
  'freebsd',
  'openbsd',
  'netbsd',
]);

function classifyUserAgent(userAgent: string): Device {
  if (userAgent === '') return 'other';
  const { device, os } = new UAParser(userAgent).getResult();
  if (device.type === 'mobile') return 'mobile';
  if (device.type === 'tablet') return 'tablet';
  // Any other type is a TV, console, wearable or embedded device.
  if (device.type !== undefined) return 'other';
  return DESKTOP_SYSTEMS.has((os.name ?? '').toLowerCase()) ? 'desktop' : 'other';
}

/** Parsing runs on every view, and most views of a link come from a handful of phone models. */
const deviceOf = remembered(500, classifyUserAgent);

interface LanguageRange {
  tag: string;
  quality: number;
}

const LANGUAGE_TAG = /^([a-z]{2,3})(-[a-z0-9]{1,8})*$/i;
const QUALITY = /^q=(0(\.\d{0,3})?|1(\.0{0,3})?)$/i;
const MAX_LANGUAGE_RANGES = 32;

function parseLanguageRange(item: string): LanguageRange | undefined {
  const [tag = '', ...params] = item.split(';').map((part) => part.trim());
  const qualityParam = params.find((param) => param.toLowerCase().startsWith('q='));
  if (qualityParam !== undefined && !QUALITY.test(qualityParam)) return undefined;
  const quality = qualityParam === undefined ? 1 : Number(qualityParam.slice(2));
  return { tag, quality };
}

/**
 * Primary subtag of the most preferred language. `*` says nothing about the visitor, so it is
 * skipped in favour of any named language; a range refused with q=0 is never chosen.
 */
function preferredLanguage(acceptLanguage: string): string {
  let best: { language: string; quality: number } | undefined;
  for (const item of acceptLanguage.split(',').slice(0, MAX_LANGUAGE_RANGES)) {
    const range = parseLanguageRange(item);
    const language = range && LANGUAGE_TAG.exec(range.tag)?.[1];
    if (!range || !language || range.quality === 0) continue;
    if (!best || range.quality > best.quality)
      best = { language: language.toLowerCase(), quality: range.quality };
  }
  return best?.language ?? 'unknown';
}

/** Browsers send a few Accept-Language values, each the same on every request. */
const languageOf = remembered(500, preferredLanguage);
