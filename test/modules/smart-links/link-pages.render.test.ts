import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type LinkPage,
  type PageButton,
  renderLinkPage,
  renderNotFoundPage,
} from '../../../src/modules/smart-links/link-pages.render.ts';

const BUTTONS: PageButton[] = [
  { name: 'Spotify', href: '/l/abc/go/spotify' },
  { name: 'Apple Music', href: '/l/abc/go/apple_music' },
  { name: 'Deezer', href: '/l/abc/go/deezer' },
];

function page(overrides: Partial<LinkPage> = {}): LinkPage {
  return {
    title: 'Night Drive',
    artist_name: 'The Lanterns',
    release_date: '2027-03-12',
    page_url: 'https://links.example.com/l/night-drive',
    cover_url: 'https://links.example.com/covers/42.jpg',
    cover_sources: [
      { url: 'https://links.example.com/covers/42.jpg?w=400', width: 400 },
      { url: 'https://links.example.com/covers/42.jpg?w=640', width: 640 },
    ],
    buttons: BUTTONS,
    theme: 'auto',
    accent: null,
    cta_text: null,
    hide_branding: false,
    presave: { kind: 'closed' },
    ...overrides,
  };
}

function metaContent(html: string, key: string): string | undefined {
  const match = new RegExp(`<meta (?:name|property)="${key}" content="([^"]*)">`).exec(html);
  return match?.[1];
}

test('the page is a complete HTML5 document with title and canonical address', () => {
  const html = renderLinkPage(page());
  assert.match(html, /^<!doctype html>\n<html lang="en"/);
  assert.match(html, /<meta charset="utf-8">/);
  assert.match(html, /<meta name="viewport" content="width=device-width,initial-scale=1">/);
  assert.match(html, /<title>Night Drive – The Lanterns<\/title>/);
  assert.match(html, /<link rel="canonical" href="https:\/\/links\.example\.com\/l\/night-drive">/);
  assert.match(html, /<\/html>\n$/);
});

test('the page runs no script and requests nothing but the cover', () => {
  const html = renderLinkPage(page({ cover_sources: [] }));
  assert.doesNotMatch(html, /<script/i);
  assert.doesNotMatch(html, /@import|@font-face|url\(/i);
  assert.equal(html.match(/<style>/g)?.length, 1);
  assert.deepEqual(
    [...html.matchAll(/\ssrc="([^"]*)"/g)].map((match) => match[1]),
    ['https://links.example.com/covers/42.jpg'],
  );
  assert.deepEqual(
    [...html.matchAll(/<link [^>]*href="([^"]*)"/g)].map((match) => match[1]),
    ['https://links.example.com/l/night-drive', 'data:,'],
  );
});

test('the cover has its size, its copies by width for the browser to choose from, and a description', () => {
  const html = renderLinkPage(page());
  const srcset =
    'https://links.example.com/covers/42.jpg?w=400 400w,https://links.example.com/covers/42.jpg?w=640 640w';
  assert.ok(
    html.includes(
      `<img class="cover" src="https://links.example.com/covers/42.jpg" srcset="${srcset}" sizes="(max-width:392px) calc(100vw - 72px),320px" width="320" height="320" fetchpriority="high" alt="Cover of Night Drive by The Lanterns">`,
    ),
    html,
  );
  assert.match(html, /\.cover\{display:block;width:100%;max-width:320px;height:auto;aspect-ratio:1;/);
});

test('without a cover a placeholder is drawn in CSS and no image is requested', () => {
  const html = renderLinkPage(page({ cover_url: null, cover_sources: [] }));
  assert.doesNotMatch(html, /<img/);
  assert.match(
    html,
    /<div class="cover placeholder" role="img" aria-label="Cover of Night Drive by The Lanterns">/,
  );
});

test('each target is a link to its redirect address, named after the platform', () => {
  const html = renderLinkPage(page());
  const links = [...html.matchAll(/<a href="([^"]*)">([^<]*)<\/a>/g)];
  assert.deepEqual(
    links.map((match) => [match[1], match[2]]),
    BUTTONS.map((button) => [button.href, button.name]),
  );
  // The word each button ends with is drawn by the sheet, once for all of them.
  assert.match(html, /--cta:"Play"/);
  assert.match(html, /nav a::after\{[^}]*content:var\(--cta\)\}/);
});

test('the heading above the buttons is the call to action', () => {
  assert.match(renderLinkPage(page()), /<h2>Listen now<\/h2>/);
  assert.match(renderLinkPage(page({ cta_text: 'Stream the single' })), /<h2>Stream the single<\/h2>/);
  assert.match(renderLinkPage(page({ cta_text: '   ' })), /<h2>Listen now<\/h2>/);
  const presaving = page({ presave: { kind: 'form', action: '/l/night-drive/presave' } });
  assert.match(renderLinkPage(presaving), /<h2>Pre-save now<\/h2>/);
});

test('the release date is shown while pre-saves are open, from the date text alone', () => {
  const open = renderLinkPage(page({ presave: { kind: 'form', action: '/p' } }));
  assert.match(open, /<p class="date">Out on 12 March 2027<\/p>/);
  const newYear = renderLinkPage(page({ release_date: '2027-01-01', presave: { kind: 'done' } }));
  assert.match(newYear, /Out on 1 January 2027/);
  assert.doesNotMatch(renderLinkPage(page()), /Out on/);
  assert.doesNotMatch(renderLinkPage(page({ release_date: 'soon', presave: { kind: 'done' } })), /Out on/);
});

test('every interpolated value is escaped', () => {
  const evil = `<script>alert("x")</script> & 'quotes'`;
  const html = renderLinkPage(
    page({
      title: evil,
      artist_name: evil,
      cta_text: evil,
      buttons: [{ name: evil, href: `https://x.test/?a="><script>` }],
      presave: { kind: 'form', action: '/p?"x"', error: evil, email: `"><script>@x.test` },
    }),
  );
  assert.doesNotMatch(html, /<script/i);
  assert.match(html, /&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt; &amp; &#39;quotes&#39;/);
  assert.match(html, /<title>&lt;script&gt;/);
  assert.match(html, /content="&lt;script&gt;alert\(&quot;x&quot;\)/);
  assert.match(html, /value="&quot;&gt;&lt;script&gt;@x\.test"/);
});

test('addresses that are not http(s) never become links', () => {
  const html = renderLinkPage(page({ buttons: [{ name: 'Spotify', href: 'javascript:alert(1)' }] }));
  assert.doesNotMatch(html, /javascript:/);
  assert.match(html, /<a href="#">Spotify<\/a>/);
});

test('the theme is a class on the document, and auto follows the system setting', () => {
  const auto = renderLinkPage(page({ theme: 'auto' }));
  assert.match(auto, /<html lang="en" class="theme-auto">/);
  assert.match(auto, /@media \(prefers-color-scheme:dark\)\{html\.theme-auto\{--bg:/);
  assert.match(auto, /<meta name="color-scheme" content="light dark">/);
  const dark = renderLinkPage(page({ theme: 'dark' }));
  assert.match(dark, /<html lang="en" class="theme-dark">/);
  assert.match(dark, /html\.theme-dark\{--bg:/);
  assert.match(dark, /<meta name="color-scheme" content="dark">/);
  assert.doesNotMatch(dark, /prefers-color-scheme/);
  const light = renderLinkPage(page({ theme: 'light' }));
  assert.match(light, /<html lang="en" class="theme-light">/);
  assert.doesNotMatch(light, /--bg:#0e0e12/, 'a light page is sent no dark palette');
});

test('button text is black or white, whichever reads better on the accent', () => {
  const onAccent = (accent: string | null) =>
    /--accent:(#[0-9a-f]{6});--on-accent:(#000|#fff)/i.exec(renderLinkPage(page({ accent })))?.slice(1);
  assert.deepEqual(onAccent('#ffeb3b'), ['#ffeb3b', '#000']);
  assert.deepEqual(onAccent('#1DB954'), ['#1DB954', '#000']);
  assert.deepEqual(onAccent('#000080'), ['#000080', '#fff']);
  assert.deepEqual(onAccent('#c2185b'), ['#c2185b', '#fff']);
  // Mid-tones go to black: it has the higher WCAG contrast ratio (5.0 against 4.2 for white).
  assert.deepEqual(onAccent('#e91e63'), ['#e91e63', '#000']);
  assert.deepEqual(onAccent(null), ['#5b3df5', '#fff']);
  assert.deepEqual(onAccent('red;}body{display:none'), ['#5b3df5', '#fff']);
});

test('the branding footer is shown unless hidden', () => {
  assert.match(renderLinkPage(page()), /<footer>Made with Labeldesk<\/footer>/);
  assert.doesNotMatch(renderLinkPage(page({ hide_branding: true })), /Labeldesk<\/footer>|<footer/);
});

test('a closed pre-save shows no form', () => {
  const html = renderLinkPage(page());
  assert.doesNotMatch(html, /<form|class="presave"/);
});

test('an open pre-save shows an e-mail form posting to its action', () => {
  const html = renderLinkPage(page({ presave: { kind: 'form', action: '/l/night-drive/presave' } }));
  assert.match(html, /<form method="post" action="\/l\/night-drive\/presave">/);
  assert.match(html, /<input type="email" name="email" required autocomplete="email"[^>]*>/);
  assert.match(html, /<button type="submit">/);
  assert.doesNotMatch(html, /role="alert"/);
  assert.doesNotMatch(html, /<input[^>]* value=/);
  assert.match(html, /--cta:"Pre-save"/);
});

test('a refused sign-up shows the error above the form and keeps the address typed', () => {
  const html = renderLinkPage(
    page({
      presave: { kind: 'form', action: '/p', error: 'Enter a valid e-mail address', email: 'fan@exmaple' },
    }),
  );
  assert.match(html, /<p class="error" role="alert">Enter a valid e-mail address<\/p>\n<input/);
  assert.match(html, /<input [^>]* value="fan@exmaple">/);
});

test('after signing up the page confirms it', () => {
  const html = renderLinkPage(page({ presave: { kind: 'done' } }));
  assert.match(html, /You're on the list/);
  assert.doesNotMatch(html, /<form/);
});

test('sharing tags describe the release and show the cover', () => {
  const html = renderLinkPage(page());
  assert.equal(metaContent(html, 'og:type'), 'music.album');
  assert.equal(metaContent(html, 'og:title'), 'Night Drive');
  assert.equal(metaContent(html, 'og:description'), 'The Lanterns · Listen on Spotify, Apple Music and more');
  assert.equal(metaContent(html, 'og:url'), 'https://links.example.com/l/night-drive');
  assert.equal(metaContent(html, 'og:image'), 'https://links.example.com/covers/42.jpg');
  assert.equal(metaContent(html, 'og:site_name'), 'Labeldesk');
  assert.equal(metaContent(html, 'twitter:card'), 'summary_large_image');
  // X (Twitter) falls back to og:title, og:description and og:image; not repeating them keeps the
  // page small.
  assert.equal(metaContent(html, 'twitter:title'), undefined);
  assert.equal(metaContent(html, 'twitter:image'), undefined);
});

test('without a cover the sharing card is the small one and names no image', () => {
  const html = renderLinkPage(page({ cover_url: null, cover_sources: [] }));
  assert.equal(metaContent(html, 'twitter:card'), 'summary');
  assert.equal(metaContent(html, 'og:image'), undefined);
});

test('the sharing description names the platforms in order', () => {
  const description = (buttons: PageButton[]) =>
    metaContent(renderLinkPage(page({ buttons })), 'og:description');
  assert.equal(description([]), 'The Lanterns');
  assert.equal(description(BUTTONS.slice(0, 1)), 'The Lanterns · Listen on Spotify');
  assert.equal(description(BUTTONS.slice(0, 2)), 'The Lanterns · Listen on Spotify and Apple Music');
});

test('a page with twelve buttons and the longest titles, all of them escaped characters, stays under 20 KB', () => {
  const buttons = Array.from({ length: 12 }, (_, i) => ({
    name: `Platform number ${i}`,
    href: `https://links.example.com/l/a-rather-long-custom-slug-for-this-release/go/platform_${i}`,
  }));
  const html = renderLinkPage(
    page({
      title: '"'.repeat(200),
      artist_name: '&'.repeat(200),
      cta_text: '<'.repeat(80),
      buttons,
      accent: '#ff5500',
      presave: {
        kind: 'form',
        action: '/l/x/presave',
        error: 'Something went wrong',
        email: 'fan@example.com',
      },
    }),
  );
  assert.ok(Buffer.byteLength(html) < 20_000, `${Buffer.byteLength(html)} bytes`);
});

test('the not-found page is small, styled alike and says nothing about the link', () => {
  const html = renderNotFoundPage();
  assert.match(html, /^<!doctype html>/);
  assert.match(html, /<h1>This link is not available<\/h1>/);
  assert.match(html, /<html lang="en" class="theme-auto">/);
  assert.match(html, /prefers-color-scheme:dark/);
  assert.match(html, /<meta name="robots" content="noindex">/);
  assert.doesNotMatch(html, /<script|<img|og:/);
  assert.ok(Buffer.byteLength(html) < 3_000, `${Buffer.byteLength(html)} bytes`);
});
