import { hash } from 'node:crypto';
import type { Theme } from '../../db/values.ts';
import { escapeHtml } from '../../lib/html.ts';

export interface PageButton {
  name: string;
  href: string;
}

export type PresaveState =
  | { kind: 'closed' }
  | { kind: 'form'; action: string; error?: string; email?: string }
  | { kind: 'done' };

/** One resized copy of the cover, for the image's `srcset`. */
export interface CoverSource {
  url: string;
  width: number;
}

export interface LinkPage {
  title: string;
  artist_name: string;
  release_date: string;
  page_url: string;
  /** The cover the page shows by default and shares; null without a cover. */
  cover_url: string | null;
  /** The cover at the widths a browser may choose from, narrowest first; empty without a cover. */
  cover_sources: CoverSource[];
  buttons: PageButton[];
  theme: Theme;
  accent: string | null;
  cta_text: string | null;
  hide_branding: boolean;
  presave: PresaveState;
}

const DEFAULT_ACCENT = '#5b3df5';
const SITE_NAME = 'Labeldesk';

/** Addresses come from our own data, but a `javascript:` one must never become a link. */
function safeUrl(url: string): string {
  if (!URL.canParse(url, 'http://x')) return '#';
  const { protocol } = new URL(url, 'http://x');
  return protocol === 'http:' || protocol === 'https:' ? url : '#';
}

// Light is the base; the dark palette is sent only to pages that can show it, by theme or by media
// query. Every byte here is sent with every page, hence the terse sheet.
const DARK_VARS =
  '--bg:#0e0e12;--card:#1a1a21;--text:#f2f2f5;--muted:#a0a0ad;--line:#2e2e38;--field:#6a6a76;--shadow:0 0 0 1px #2e2e38;--error:#ff8a80';

const THEME_CSS: Readonly<Record<Theme, string>> = {
  light: '',
  dark: `html.theme-dark{${DARK_VARS}}`,
  auto: `@media (prefers-color-scheme:dark){html.theme-auto{${DARK_VARS}}}`,
};

const BASE_CSS = `:root{--bg:#f3f3f6;--card:#fff;--text:#141418;--muted:#60606c;--line:#e2e2e8;--field:#8e8e99;--shadow:0 8px 30px rgba(0,0,0,.08);--error:#c5221f}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;background:var(--bg);color:var(--text);font:16px/1.45 system-ui,sans-serif;display:flex;flex-direction:column;align-items:center;padding:24px 16px}
main{width:100%;max-width:420px;background:var(--card);border-radius:20px;padding:24px 20px;box-shadow:var(--shadow);text-align:center}
h1{font-size:1.5rem;line-height:1.2;margin:0 0 4px;overflow-wrap:anywhere}
p{margin:0;color:var(--muted)}
footer{margin-top:20px;font-size:.8rem;color:var(--muted)}`;

/**
 * The cover's width on screen: the card's content box (the viewport less 72 px of padding) up to
 * COVER_SIZE. `sizes` says the same to the browser, so it picks the copy before the sheet is read.
 */
const COVER_SIZE = 320;
const COVER_SIZES = `(max-width:${COVER_SIZE + 72}px) calc(100vw - 72px),${COVER_SIZE}px`;

const PAGE_CSS = `.cover{display:block;width:100%;max-width:${COVER_SIZE}px;height:auto;aspect-ratio:1;margin:0 auto 20px;border-radius:14px;box-shadow:0 12px 32px rgba(0,0,0,.25);object-fit:cover}
.artist{font-size:1.05rem;overflow-wrap:anywhere}
h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.08em;color:var(--muted);margin:24px 0 12px}
nav{display:flex;flex-direction:column;gap:10px}
nav a,button{display:flex;align-items:center;justify-content:space-between;min-height:52px;padding:0 18px;border:0;border-radius:12px;background:var(--accent);color:var(--on-accent);font:inherit;font-weight:600;text-decoration:none;cursor:pointer}
nav a:hover,button:hover{filter:brightness(1.08)}
nav a:focus-visible,button:focus-visible,input:focus-visible{outline:3px solid var(--text);outline-offset:2px}
nav a::after{font-size:.85rem;font-weight:500;content:var(--cta)}`;

const PLACEHOLDER_CSS = `.placeholder{display:flex;align-items:center;justify-content:center;font-size:4rem;color:rgba(255,255,255,.85);background:linear-gradient(135deg,var(--accent),#1b1b24)}`;

const PRESAVE_CSS = `.date{margin-top:6px;font-size:.9rem}
.presave{margin-top:24px;padding-top:20px;border-top:1px solid var(--line)}
form{display:flex;flex-direction:column;gap:10px;margin-top:12px}
input{min-height:48px;padding:0 14px;border:1px solid var(--field);border-radius:12px;background:var(--bg);color:var(--text);font:inherit}
button{justify-content:center;width:100%}
.error{color:var(--error);font-size:.9rem}
.done{color:var(--text);font-weight:600}`;

interface Rgb {
  r: number;
  g: number;
  b: number;
}

function parseHexColour(colour: string): Rgb | undefined {
  const hex = /^#([0-9a-f]{6})$/i.exec(colour)?.[1];
  if (hex === undefined) return undefined;
  const value = Number.parseInt(hex, 16);
  return { r: value >> 16, g: (value >> 8) & 0xff, b: value & 0xff };
}

/** WCAG 2 relative luminance, 0 for black to 1 for white. */
function relativeLuminance({ r, g, b }: Rgb): number {
  const linear = (channel: number) => {
    const c = channel / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** Black or white, whichever contrasts more with the accent (WCAG contrast ratio). */
function textColourOn(accent: string): '#000' | '#fff' {
  const luminance = relativeLuminance(parseHexColour(accent) ?? { r: 0, g: 0, b: 0 });
  const contrastWithWhite = 1.05 / (luminance + 0.05);
  const contrastWithBlack = (luminance + 0.05) / 0.05;
  return contrastWithBlack > contrastWithWhite ? '#000' : '#fff';
}

type CallToAction = 'Pre-save' | 'Play';

/**
 * The page's own values: its accent, the text colour that reads on it, and the word each button
 * ends with (drawn by the sheet, so a dozen buttons do not each carry it).
 */
function pageVariablesCss(accent: string | null, callToAction: CallToAction): string {
  const colour = accent !== null && parseHexColour(accent) ? accent : DEFAULT_ACCENT;
  return `:root{--accent:${colour};--on-accent:${textColourOn(colour)};--cta:"${callToAction}"}`;
}

function callToActionOf(page: LinkPage): CallToAction {
  return page.presave.kind === 'closed' ? 'Play' : 'Pre-save';
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** "12 March 2027", read straight from the text so no time zone can move the day. */
function formatReleaseDate(date: string): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const month = match ? MONTHS[Number(match[2]) - 1] : undefined;
  if (!match || !month) return undefined;
  return `${Number(match[3])} ${month} ${match[1]}`;
}

function listOfNames(names: string[]): string {
  if (names.length <= 1) return names.join('');
  if (names.length === 2) return `${names[0]} and ${names[1]}`;
  return `${names.slice(0, 2).join(', ')} and more`;
}

function shareDescription(page: LinkPage, presaveOpen: boolean): string {
  const names = page.buttons.map((button) => button.name);
  if (names.length === 0) return page.artist_name;
  return `${page.artist_name} · ${presaveOpen ? 'Pre-save' : 'Listen'} on ${listOfNames(names)}`;
}

function meta(attribute: 'name' | 'property', key: string, content: string): string {
  return `<meta ${attribute}="${key}" content="${escapeHtml(content)}">`;
}

function shareTags(page: LinkPage, description: string): string {
  const cover = page.cover_url === null ? null : safeUrl(page.cover_url);
  const tags = [
    meta('name', 'description', description),
    meta('property', 'og:type', 'music.album'),
    meta('property', 'og:site_name', SITE_NAME),
    meta('property', 'og:title', page.title),
    meta('property', 'og:description', description),
    meta('property', 'og:url', safeUrl(page.page_url)),
    meta('name', 'twitter:card', cover === null ? 'summary' : 'summary_large_image'),
  ];
  if (cover !== null) {
    // X (Twitter) takes og:image when twitter:image is absent. No og:image:alt: it would be the
    // title and artist a third time, and the page's size is what a fan on a slow network waits for.
    tags.push(meta('property', 'og:image', cover));
  }
  return tags.join('\n');
}

function coverAlt(page: LinkPage): string {
  return `Cover of ${page.title} by ${page.artist_name}`;
}

function coverHtml(page: LinkPage): string {
  if (page.cover_url === null) {
    return `<div class="cover placeholder" role="img" aria-label="${escapeHtml(coverAlt(page))}">♪</div>`;
  }
  // Width and height reserve the square before the image arrives, so nothing below it moves. The
  // cover is the page's largest paint: fetched first, not after the layout finds it on screen.
  const size = `width="${COVER_SIZE}" height="${COVER_SIZE}"`;
  return `<img class="cover" src="${escapeHtml(safeUrl(page.cover_url))}"${responsiveSources(page.cover_sources)} ${size} fetchpriority="high" alt="${escapeHtml(coverAlt(page))}">`;
}

/** `srcset` and `sizes`: a phone at 3x loads a copy three times as wide as one at 1x, and no wider. */
function responsiveSources(sources: CoverSource[]): string {
  if (sources.length === 0) return '';
  const candidates = sources.map((source) => `${escapeHtml(safeUrl(source.url))} ${source.width}w`);
  return ` srcset="${candidates.join(',')}" sizes="${COVER_SIZES}"`;
}

function buttonHtml(button: PageButton): string {
  return `<a href="${escapeHtml(safeUrl(button.href))}">${escapeHtml(button.name)}</a>`;
}

function presaveHtml(presave: PresaveState): string {
  if (presave.kind === 'closed') return '';
  if (presave.kind === 'done') {
    return `<section class="presave"><p class="done" role="status">You're on the list! We'll e-mail you on release day.</p></section>`;
  }
  const error = presave.error ? `<p class="error" role="alert">${escapeHtml(presave.error)}</p>` : '';
  const email = presave.email ? ` value="${escapeHtml(presave.email)}"` : '';
  return `<section class="presave"><p>Get an e-mail on release day</p>
<form method="post" action="${escapeHtml(safeUrl(presave.action))}">${error}
<input type="email" name="email" required autocomplete="email" placeholder="you@example.com" aria-label="E-mail address"${email}>
<button type="submit">Remind me</button></form></section>`;
}

function documentHtml(head: string, css: string, themeClass: string, body: string): string {
  return `<!doctype html>
<html lang="en" class="${themeClass}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
${head}
<link rel="icon" href="data:,">
<style>${css}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

function colourScheme(theme: Theme): string {
  return theme === 'auto' ? 'light dark' : theme;
}

/** The sheet of this page alone: rules for parts it does not show are not sent. */
function linkPageCss(page: LinkPage): string {
  return [
    BASE_CSS,
    THEME_CSS[page.theme],
    pageVariablesCss(page.accent, callToActionOf(page)),
    PAGE_CSS,
    page.cover_url === null ? PLACEHOLDER_CSS : '',
    page.presave.kind === 'closed' ? '' : PRESAVE_CSS,
  ]
    .filter((part) => part !== '')
    .join('\n');
}

const NOT_FOUND_CSS = `${BASE_CSS}\n${THEME_CSS.auto}`;

/** Where a page's own address points, as a CSP source: its origin, or the page's own for a path. */
function sourceOf(url: string): string {
  const address = safeUrl(url);
  return URL.canParse(address) ? new URL(address).origin : "'self'";
}

/**
 * A page runs no script at all. Its one inline `<style>` is allowed by its hash rather than by
 * `'unsafe-inline'`, so markup that slipped past escaping could not style the page either (the
 * accent colour makes the sheet differ per link, hence a hash per page). Images come only from
 * the cover's host, the form posts only to its own address, and no site may frame the page.
 */
function pageSecurityPolicy(css: string, coverUrl: string | null, formAction: string | null): string {
  return [
    "default-src 'none'",
    `style-src 'sha256-${hash('sha256', css, 'base64')}'`,
    `img-src data:${coverUrl === null ? '' : ` ${sourceOf(coverUrl)}`}`,
    `form-action ${formAction === null ? "'none'" : sourceOf(formAction)}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The Content-Security-Policy that lets `renderLinkPage(page)` show, and nothing else run. */
export function linkPageSecurityPolicy(page: LinkPage): string {
  const formAction = page.presave.kind === 'form' ? page.presave.action : null;
  return pageSecurityPolicy(linkPageCss(page), page.cover_url, formAction);
}

export const NOT_FOUND_PAGE_SECURITY_POLICY = pageSecurityPolicy(NOT_FOUND_CSS, null, null);

export function renderLinkPage(page: LinkPage): string {
  const presaveOpen = page.presave.kind !== 'closed';
  const releaseDate = presaveOpen ? formatReleaseDate(page.release_date) : undefined;
  const heading = page.cta_text?.trim() || (presaveOpen ? 'Pre-save now' : 'Listen now');
  const head = [
    `<title>${escapeHtml(`${page.title} – ${page.artist_name}`)}</title>`,
    `<link rel="canonical" href="${escapeHtml(safeUrl(page.page_url))}">`,
    meta('name', 'color-scheme', colourScheme(page.theme)),
    shareTags(page, shareDescription(page, presaveOpen)),
  ].join('\n');
  const body = `<main>
${coverHtml(page)}
<h1>${escapeHtml(page.title)}</h1>
<p class="artist">${escapeHtml(page.artist_name)}</p>
${releaseDate ? `<p class="date">Out on ${releaseDate}</p>\n` : ''}<h2>${escapeHtml(heading)}</h2>
<nav aria-label="Platforms">
${page.buttons.map(buttonHtml).join('\n')}
</nav>
${presaveHtml(page.presave)}
</main>
${page.hide_branding ? '' : `<footer>Made with ${SITE_NAME}</footer>`}`;
  return documentHtml(head, linkPageCss(page), `theme-${page.theme}`, body);
}

export function renderNotFoundPage(): string {
  const head = `<title>Link not available</title>\n${meta('name', 'robots', 'noindex')}\n${meta('name', 'color-scheme', colourScheme('auto'))}`;
  const body = `<main>
<h1>This link is not available</h1>
<p>It may have been switched off, or the address may be mistyped.</p>
</main>`;
  return documentHtml(head, NOT_FOUND_CSS, 'theme-auto', body);
}
