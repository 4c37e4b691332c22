// Smart-link pages in a real browser: `labeldesk serve` runs as a child process (as an operator runs
// it, HTTPS with its self-signed certificate) and Debian's Chromium, driven by playwright-core, is the
// visitor. A phone opens a page from a newsletter and taps a button; a fan signs up for a pre-save;
// full-page screenshots of the light and dark themes go to test-output/ for a person to look at.
// The platforms are stand-ins on a local HTTP server: the redirect lands somewhere real and offline.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, BrowserContextOptions } from 'playwright-core';
import sharp from 'sharp';
import { type Server, selectRows } from '../../helpers/installation.ts';
import {
  type Cleanups,
  chromiumMissing,
  givenReleaseWithCover,
  launchChromium,
  nextYear,
  PHONE,
  type SmartLink,
  servedInstallation,
} from './link-pages.browser.fixtures.ts';

const OUTPUT_DIR = fileURLToPath(new URL('../../../test-output/', import.meta.url));

// ---------------------------------------------------------------------------------------------
// The platforms' stand-in.

interface Platforms {
  origin: string;
  /** `METHOD /path` of every request that reached the stand-in. */
  requests: string[];
  close(): Promise<void>;
}

/** Stands in for the streaming platforms: any path answers a small HTML page. */
async function startPlatforms(): Promise<Platforms> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><title>Platform stand-in</title><h1>${request.url}</h1>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Stats {
  totals: { views: number; clicks: number; rate_percent: number; presaves: number };
  days: Array<{ date: string; views: number; clicks: number }>;
  platforms: Array<{ platform: string; title: string; clicks: number; share_percent: number }>;
  sources: Array<{ source: string; views: number }>;
  devices: Array<{ device: string; views: number }>;
  languages: Array<{ language: string; views: number }>;
}

interface LoggedRequest {
  method: string;
  url: string;
  status: number;
}

/**
 * The requests under `prefix` in the server's own log (one JSON line per request on standard output),
 * read once `expected` of them are there and the log has had time to flush anything that came after
 * (it writes at least once a second).
 */
async function loggedRequests(server: Server, prefix: string, expected: number): Promise<LoggedRequest[]> {
  const read = () =>
    server
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg?: string } & LoggedRequest)
      .filter((line) => line.msg === 'request' && line.url.startsWith(prefix))
      .map(({ method, url, status }) => ({ method, url, status }));
  const deadline = Date.now() + 10_000;
  while (read().length < expected && Date.now() < deadline) await sleep(100);
  await sleep(1500);
  return read();
}

// ---------------------------------------------------------------------------------------------

test('smart-link pages in Chromium: a phone view and tap, a pre-save, light and dark screenshots', {
  timeout: 180_000,
}, async (t) => {
  const missing = chromiumMissing();
  if (missing !== null) {
    t.skip(missing);
    return;
  }
  const cleanups: Cleanups = [];
  t.after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  const { server, origin, api, install } = await servedInstallation('link_pages_browser', cleanups);
  const platforms = await startPlatforms();
  cleanups.push(() => platforms.close());
  const browser = await launchChromium(cleanups);

  /** A fresh browser context (no shared cookies or cache) that records what it asks our server for. */
  async function openContext(options: BrowserContextOptions): Promise<{
    context: BrowserContext;
    requested: string[];
  }> {
    const context = await browser.newContext(options);
    cleanups.push(() => context.close());
    const requested: string[] = [];
    context.on('request', (request) => {
      if (request.url().startsWith(origin)) {
        requested.push(`${request.method()} ${request.url().slice(origin.length)}`);
      }
    });
    return { context, requested };
  }

  await t.test('a phone opens the page from a newsletter and taps Spotify: one view, one click', async () => {
    const { smart_link: link } = await api.expect<{ smart_link: SmartLink }>(201, 'POST', '/smart-links', {
      title: 'Nightfall',
      artist_name: 'Mira Vale',
      release_date: '2025-11-14',
      targets: [
        { platform: 'spotify', url: `${platforms.origin}/spotify-album` },
        { platform: 'apple_music', url: `${platforms.origin}/apple-music-album` },
      ],
    });
    assert.equal(link.url, `${origin}/l/${link.code}`);

    const { context, requested } = await openContext(PHONE);
    const page = await context.newPage();
    const opened = await page.goto(`${link.url}?utm_source=newsletter`);
    assert.equal(opened?.status(), 200);
    assert.equal(await page.title(), 'Nightfall – Mira Vale');
    await page.getByRole('heading', { level: 1, name: 'Nightfall' }).waitFor({ state: 'visible' });
    const spotify = page.getByRole('link', { name: /Spotify/ });
    const appleMusic = page.getByRole('link', { name: /Apple Music/ });
    assert.ok(await spotify.isVisible(), 'the Spotify button is visible');
    assert.ok(await appleMusic.isVisible(), 'the Apple Music button is visible');
    assert.equal(await spotify.getAttribute('href'), `/l/${link.code}/go/spotify`);

    await Promise.all([page.waitForURL(`${platforms.origin}/spotify-album`), spotify.tap()]);
    assert.equal(page.url(), `${platforms.origin}/spotify-album`);
    assert.equal(await page.title(), 'Platform stand-in');
    assert.ok(platforms.requests.includes('GET /spotify-album'), platforms.requests.join('\n'));

    // Exactly two requests reached our server, both from the browser and both in the server's log:
    // no prefetch, no favicon (the page declares an empty one), nothing in the background.
    const expectedRequests = [`GET /l/${link.code}?utm_source=newsletter`, `GET /l/${link.code}/go/spotify`];
    assert.deepEqual(requested, expectedRequests);
    const logged = await loggedRequests(server, `/l/${link.code}`, 2);
    assert.deepEqual(logged, [
      { method: 'GET', url: `/l/${link.code}?utm_source=newsletter`, status: 200 },
      { method: 'GET', url: `/l/${link.code}/go/spotify`, status: 302 },
    ]);

    const stats = await api.expect<Stats>(200, 'GET', `/smart-links/${link.id}/stats`);
    assert.deepEqual(
      {
        totals: stats.totals,
        platforms: stats.platforms,
        sources: stats.sources,
        devices: stats.devices,
        languages: stats.languages,
      },
      {
        totals: { views: 1, clicks: 1, rate_percent: 100, presaves: 0 },
        platforms: [{ platform: 'spotify', title: 'Spotify', clicks: 1, share_percent: 100 }],
        sources: [{ source: 'newsletter', views: 1 }],
        devices: [{ device: 'mobile', views: 1 }],
        languages: [{ language: 'de', views: 1 }],
      },
    );
    const byDay = stats.days.reduce(
      (sum, day) => ({ views: sum.views + day.views, clicks: sum.clicks + day.clicks }),
      { views: 0, clicks: 0 },
    );
    assert.deepEqual(byDay, { views: 1, clicks: 1 });
    const { smart_link: counted } = await api.expect<{ smart_link: SmartLink }>(
      200,
      'GET',
      `/smart-links/${link.id}`,
    );
    assert.deepEqual(
      { views: counted.views, clicks: counted.clicks, presaves: counted.presaves },
      { views: 1, clicks: 1, presaves: 0 },
    );
  });

  await t.test(
    'a fan signs up for a pre-save: counted once, and the event never holds the address',
    async () => {
      const email = 'fan.browser@example.org';
      const { smart_link: link } = await api.expect<{ smart_link: SmartLink }>(201, 'POST', '/smart-links', {
        title: 'Afterglow',
        artist_name: 'Mira Vale',
        release_date: nextYear('06-12'),
        targets: [{ platform: 'spotify', url: `${platforms.origin}/spotify-presave` }],
      });
      const { events: before } = await api.expect<{ events: unknown[] }>(
        200,
        'GET',
        '/events?types=presave.signup',
      );
      assert.deepEqual(before, []);

      const { context } = await openContext(PHONE);
      const page = await context.newPage();
      await page.goto(link.url);
      await page.getByText('Get an e-mail on release day').waitFor({ state: 'visible' });
      await page.getByRole('textbox', { name: 'E-mail address' }).fill(email);
      const [answer] = await Promise.all([
        page.waitForResponse((response) => response.url() === `${link.url}/presave`),
        page.getByRole('button', { name: 'Remind me' }).tap(),
      ]);
      assert.equal(answer.status(), 200);
      const done = page.getByRole('status');
      await done.waitFor({ state: 'visible' });
      assert.equal(await done.textContent(), "You're on the list! We'll e-mail you on release day.");
      assert.equal(await page.getByRole('textbox').count(), 0, 'the form is gone');
      assert.ok(!(await page.content()).includes(email), 'the confirmation does not echo the address');

      const { smart_link: counted } = await api.expect<{ smart_link: SmartLink }>(
        200,
        'GET',
        `/smart-links/${link.id}`,
      );
      assert.equal(counted.presaves, 1);

      const { events } = await api.expect<{
        events: Array<{ event: string; data: { smart_link?: { id: number }; presaves?: number } }>;
      }>(200, 'GET', '/events?types=presave.signup');
      assert.equal(events.length, 1, JSON.stringify(events));
      const [signup] = events;
      assert.equal(signup?.event, 'presave.signup');
      assert.equal(signup?.data.smart_link?.id, link.id);
      assert.equal(signup?.data.presaves, 1);
      assert.ok(
        !JSON.stringify(events).toLowerCase().includes(email.toLowerCase()),
        'the event does not hold the address',
      );
      // Nor does the database in the clear: it keeps a keyed digest and the sealed address.
      const stored = await selectRows(install, 'select * from smart_link_presaves');
      assert.equal(stored.length, 1);
      assert.ok(!JSON.stringify(stored).toLowerCase().includes(email.toLowerCase()), 'stored sealed');
    },
  );

  await t.test('screenshots: a link with a cover in the light and the dark theme', async () => {
    mkdirSync(OUTPUT_DIR, { recursive: true });
    const releaseId = await givenReleaseWithCover(api, 'Nightfall');

    const targets = ['spotify', 'apple_music', 'youtube_music', 'deezer', 'tidal'].map((platform) => ({
      platform,
      url: `${platforms.origin}/${platform}`,
    }));
    const shots = [
      {
        file: 'smart-link-light.png',
        release_date: '2025-11-14',
        patch: { theme: 'light', accent: '#1db954', cta_text: 'Out now: listen everywhere' },
      },
      {
        file: 'smart-link-dark.png',
        release_date: nextYear('03-06'),
        patch: { theme: 'dark', accent: '#ff5a36', cta_text: 'Pre-save the new single' },
      },
    ];
    for (const shot of shots) {
      const { smart_link: link } = await api.expect<{ smart_link: SmartLink }>(201, 'POST', '/smart-links', {
        title: 'Nightfall',
        artist_name: 'Mira Vale',
        release_date: shot.release_date,
        release_id: releaseId,
        targets,
      });
      await api.expect(200, 'PATCH', `/smart-links/${link.id}`, shot.patch);

      const { context } = await openContext(PHONE);
      const page = await context.newPage();
      await page.goto(link.url, { waitUntil: 'load' });
      const image = page.locator('img.cover');
      assert.equal(await image.getAttribute('alt'), 'Cover of Nightfall by Mira Vale');
      // A 390 px phone at 2x shows the 318 px cover from the 640 px copy.
      const loaded = await image.evaluate((img: HTMLImageElement) => img.complete && img.currentSrc);
      assert.match(String(loaded), /\?w=640$/, 'the cover loaded, resized for the page');
      await page.getByRole('heading', { level: 2, name: shot.patch.cta_text }).waitFor({ state: 'visible' });
      const path = join(OUTPUT_DIR, shot.file);
      await page.screenshot({ path, fullPage: true });
      const { width, height } = await sharp(path).metadata();
      assert.equal(width, 390 * 2);
      assert.ok((height ?? 0) >= 844 * 2, `full page: ${height} px high`);
      t.diagnostic(`screenshot: ${path}`);
    }
  });
});
