// The smart-link page as a fan's phone gets it, in Chromium against `labeldesk serve`: axe-core finds
// no serious or critical accessibility violation in any state, theme or colour scheme; the page works
// with JavaScript switched off; and on a slow 4G network its largest paint comes
// within a second, without the layout moving when the cover arrives.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { PLATFORM_KEYS } from '../../../src/modules/platforms/index.ts';
import {
  type Api,
  type Cleanups,
  chromiumMissing,
  givenReleaseWithCover,
  launchChromium,
  nextYear,
  PHONE,
  type SmartLink,
  servedInstallation,
} from './link-pages.browser.fixtures.ts';

/**
 * Lighthouse's "slow 4G" network: 150 ms round trips, 1.6 Mbit/s down, 750 kbit/s up. The issue's
 * budget is for the network; Lighthouse also slows the CPU 4x, but on this shared 2-core machine a
 * slowed CPU measures what else the machine runs more than the page (940–1088 ms on a quiet run).
 */
const SLOW_4G = {
  offline: false,
  latency: 150,
  downloadThroughput: 1_600_000 / 8,
  uploadThroughput: 750_000 / 8,
};
const LCP_BUDGET_MS = 1000;
/** Loads measured; the median is judged. */
const LCP_LOADS = 3;

const EVERY_PLATFORM = PLATFORM_KEYS.map((platform) => ({
  platform,
  url: `https://${platform}.example/album/4aawyAB9vmqN`,
}));

async function givenLink(
  api: Api,
  input: { release_date: string; release_id?: number },
  appearance: Record<string, unknown>,
): Promise<SmartLink> {
  const { smart_link: link } = await api.expect<{ smart_link: SmartLink }>(201, 'POST', '/smart-links', {
    title: 'Nightfall (Extended Version)',
    artist_name: 'Mira Vale & The Northern Lights',
    targets: EVERY_PLATFORM,
    ...input,
  });
  await api.expect(200, 'PATCH', `/smart-links/${link.id}`, appearance);
  return link;
}

/** One state of the page: how a fan gets there. */
interface PageState {
  name: string;
  reach(page: Page): Promise<unknown>;
}

async function submitPresave(page: Page, url: string, email: string): Promise<void> {
  await page.goto(url);
  await page.getByRole('textbox', { name: 'E-mail address' }).fill(email);
  await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Remind me' }).click()]);
}

/** Serious and critical violations, one line each with the elements they were found on. */
async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
}

interface PaintTimings {
  lcp: number;
  lcpElement: string;
  layoutShift: number;
}

/**
 * The page's own record of its largest contentful paint and its layout shifts, read after load once
 * the cover has been painted (its entry comes a frame or more after load), or after 5 s without it.
 * Runs in the page: only inline functions, since the test's TypeScript loader wraps named ones in a
 * helper the page does not have.
 */
function paintTimings(page: Page): Promise<PaintTimings> {
  return page.evaluate(async () => {
    const paints: LargestContentfulPaint[] = [];
    const shifts: number[] = [];
    new PerformanceObserver((list) => {
      paints.push(...(list.getEntries() as LargestContentfulPaint[]));
    }).observe({ type: 'largest-contentful-paint', buffered: true });
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as Array<PerformanceEntry & { value?: number }>) {
        shifts.push(entry.value ?? 0);
      }
    }).observe({ type: 'layout-shift', buffered: true });
    for (
      let waited = 0;
      waited < 5000 && !paints.some((paint) => paint.element?.tagName === 'IMG');
      waited += 50
    ) {
      await new Promise((resume) => setTimeout(resume, 50));
    }
    const last = paints.at(-1);
    return {
      lcp: last?.startTime ?? Number.POSITIVE_INFINITY,
      lcpElement: last?.element?.tagName ?? '',
      layoutShift: shifts.reduce((sum, shift) => sum + shift, 0),
    };
  });
}

async function newPage(browser: Browser, cleanups: Cleanups, options: BrowserContextOptions): Promise<Page> {
  const context = await browser.newContext(options);
  cleanups.push(() => context.close());
  return context.newPage();
}

test('smart-link pages in Chromium: accessible in every state, working without script, fast on slow 4G', {
  timeout: 240_000,
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
  const { origin, api } = await servedInstallation('link_pages_quality', cleanups);
  const browser = await launchChromium(cleanups);
  const releaseId = await givenReleaseWithCover(api, 'Nightfall', 'jpeg');

  const listen = await givenLink(
    api,
    { release_date: '2025-11-14', release_id: releaseId },
    { theme: 'light', accent: '#1db954', cta_text: 'Out now: listen everywhere' },
  );
  const presave = await givenLink(
    api,
    { release_date: nextYear('03-06'), release_id: releaseId },
    { theme: 'dark', accent: '#ff5a36', cta_text: 'Pre-save the new single' },
  );
  const plain = await givenLink(api, { release_date: '2025-11-14' }, { theme: 'auto' });
  const plainPresave = await givenLink(
    api,
    { release_date: nextYear('03-06') },
    { theme: 'auto', accent: '#ffeb3b' },
  );

  await t.test(
    'axe-core finds no serious or critical violation in any state, in a light or a dark system theme',
    async () => {
      const states: PageState[] = [
        { name: 'light theme, cover, released', reach: (page) => page.goto(listen.url) },
        { name: 'dark theme, cover, pre-save form', reach: (page) => page.goto(presave.url) },
        {
          name: 'dark theme, form with its error',
          reach: async (page) => {
            await submitPresave(page, presave.url, 'fan@localhost');
            await page.getByRole('alert').waitFor();
          },
        },
        {
          name: 'dark theme, signed up',
          reach: async (page) => {
            await submitPresave(page, presave.url, 'fan.axe@example.org');
            await page.getByRole('status').waitFor();
          },
        },
        { name: 'auto theme, no cover, released', reach: (page) => page.goto(plain.url) },
        { name: 'auto theme, no cover, pre-save form', reach: (page) => page.goto(plainPresave.url) },
        { name: 'the 404 page', reach: (page) => page.goto(`${origin}/l/no-such-link`) },
      ];
      const found: string[] = [];
      for (const colorScheme of ['light', 'dark'] as const) {
        const page = await newPage(browser, cleanups, { ...PHONE, colorScheme });
        for (const state of states) {
          await state.reach(page);
          for (const violation of await seriousViolations(page))
            found.push(`${state.name} (${colorScheme}): ${violation}`);
        }
      }
      assert.deepEqual(found, []);
    },
  );

  await t.test('with JavaScript switched off a fan signs up and follows a button', async () => {
    const page = await newPage(browser, cleanups, { ...PHONE, javaScriptEnabled: false });
    await submitPresave(page, presave.url, 'fan.noscript@example.org');
    await page.getByRole('status').waitFor();
    const spotify = page.getByRole('link', { name: /Spotify/ });
    assert.equal(await spotify.getAttribute('href'), `/l/${presave.code}/go/spotify`);
    const [response] = await Promise.all([
      page.waitForResponse((answer) => answer.url().endsWith('/go/spotify')),
      // The stand-in addresses do not resolve: the redirect itself is the answer to look at.
      spotify.click({ noWaitAfter: true }),
    ]);
    assert.equal(response.status(), 302);
    assert.equal(response.headers().location, 'https://spotify.example/album/4aawyAB9vmqN');
  });

  await t.test(`largest contentful paint under ${LCP_BUDGET_MS} ms on slow 4G`, async () => {
    // The label looks at its page once: the resized cover copies are made then, not for the first fan.
    const preview = await newPage(browser, cleanups, PHONE);
    await preview.goto(presave.url, { waitUntil: 'load' });

    // Each load is a new fan (a fresh context, nothing cached); the median of a few loads is the
    // page's figure, where one load is at the mercy of whatever else the machine is doing.
    const loads: PaintTimings[] = [];
    for (let load = 0; load < LCP_LOADS; load++) {
      const page = await newPage(browser, cleanups, PHONE);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', SLOW_4G);
      await page.goto(presave.url, { waitUntil: 'load' });
      loads.push(await paintTimings(page));
    }
    t.diagnostic(
      loads
        .map(
          (timings) =>
            `LCP ${Math.round(timings.lcp)} ms on <${timings.lcpElement}>, layout shift ${timings.layoutShift}`,
        )
        .join('; '),
    );
    for (const timings of loads) {
      assert.equal(timings.lcpElement, 'IMG', 'the cover is the largest paint');
      assert.equal(timings.layoutShift, 0, 'nothing moves when the cover arrives');
    }
    const median =
      loads.map((timings) => timings.lcp).sort((a, b) => a - b)[Math.floor(LCP_LOADS / 2)] ?? Infinity;
    assert.ok(median < LCP_BUDGET_MS, `median LCP ${Math.round(median)} ms`);
  });
});
