// The HTML pages under their Content-Security-Policy in a real browser (Debian's Chromium, driven
// by playwright-core): a policy that blocked what a page needs would show here as a console
// refusal or a page without its styles, where a header check alone would pass.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { buildHarness, call, givenCaller, type Harness, json } from '../helpers/harness.ts';

const CHROMIUM = '/usr/bin/chromium';

async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
}

/** A page that records every policy refusal the browser reports. */
async function openPage(browser: Browser): Promise<{ page: Page; refusals: string[] }> {
  const page = await browser.newPage();
  const refusals: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) refusals.push(message.text());
  });
  return { page, refusals };
}

async function listening(h: Harness): Promise<string> {
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
}

test('pages render under their Content-Security-Policy in Chromium', async (t) => {
  if (!existsSync(CHROMIUM)) {
    t.skip(`${CHROMIUM} is not installed (apt-get install chromium; .ci/run installs it)`);
    return;
  }
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const created = await call(h, 'POST', '/api/v1/smart-links', {
    key,
    payload: {
      title: 'Night Drive',
      artist_name: 'Mira Vale',
      release_date: '2026-04-10',
      targets: [{ platform: 'spotify', url: 'https://open.spotify.com/album/4aawyAB9vmqN3uQ7FjRGTy' }],
    },
  });
  assert.equal(created.statusCode, 201, created.body);
  const { id, code } = (json(created) as { smart_link: { id: number; code: string } }).smart_link;
  const accent = await call(h, 'PATCH', `/api/v1/smart-links/${id}`, { key, payload: { accent: '#ff5500' } });
  assert.equal(accent.statusCode, 200, accent.body);
  const origin = await listening(h);
  const browser = await launch();
  t.after(() => browser.close());

  await t.test('a smart-link page and its 404 keep their styles', async () => {
    const { page, refusals } = await openPage(browser);
    await page.goto(`${origin}/l/${code}`);
    const styled = await page.evaluate(() => {
      const main = document.querySelector('main');
      const button = document.querySelector('nav a');
      return {
        radius: main ? getComputedStyle(main).borderRadius : null,
        button: button ? getComputedStyle(button).backgroundColor : null,
      };
    });
    assert.deepEqual(styled, { radius: '20px', button: 'rgb(255, 85, 0)' });
    await page.goto(`${origin}/l/no-such-link`);
    const notFound = await page.evaluate(() => {
      const main = document.querySelector('main');
      return main ? getComputedStyle(main).borderRadius : null;
    });
    assert.equal(notFound, '20px');
    assert.deepEqual(refusals, []);
  });

  await t.test('the reference page renders the operations', async () => {
    const { page, refusals } = await openPage(browser);
    await page.goto(`${origin}/api/v1/docs`);
    await page.waitForSelector('.swagger-ui .opblock', { timeout: 20_000 });
    const shown = await page.evaluate(() => {
      const title = document.querySelector('.swagger-ui .info .title');
      return {
        title: title?.textContent?.startsWith('Label Catalog and Release Distribution API') ?? false,
        operations: document.querySelectorAll('.swagger-ui .opblock').length > 10,
        styled: title ? getComputedStyle(title).fontSize : null,
      };
    });
    assert.deepEqual(shown, { title: true, operations: true, styled: '36px' });
    assert.deepEqual(refusals, []);
  });
});
