// The console's Smart links page (issue 20): links with views, clicks and rate; a link's statistics as charts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildHarness, givenCaller } from '../../helpers/harness.ts';
import { givenLink, open } from '../smart-links/link-pages.fixtures.ts';
import { acceptInvite, Browser, givenInvitedMember } from './console.fixtures.ts';

test('smart links with their counts, a link’s statistics as charts, and no other label’s link', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const other = await givenCaller(h);
  const link = await givenLink(h, key);
  const theirs = await givenLink(h, other.key);
  for (let i = 0; i < 4; i++)
    assert.equal((await open(h, `/l/${link.code}`, { referer: 'https://t.co/' })).statusCode, 200);
  assert.equal((await open(h, `/l/${link.code}/go/spotify`)).statusCode, 302);

  const { invitePath } = await givenInvitedMember(h, label.id, { login: 'ana', role: 'viewer' });
  const browser = new Browser(h);
  await acceptInvite(browser, invitePath);

  const list = await browser.get('/console/smart-links');
  assert.equal(list.statusCode, 200);
  assert.match(list.body, /<a href="\/console\/smart-links" aria-current="page">Smart links<\/a>/);
  assert.match(
    list.body,
    new RegExp(
      `<a href="/console/smart-links/${link.id}">[^<]+</a></td><td>[^<]+</td>\\s*<td>enabled</td><td class="n">4</td><td class="n">1</td><td class="n">25%</td>`,
    ),
  );

  const detail = await browser.get(`/console/smart-links/${link.id}`);
  assert.equal(detail.statusCode, 200);
  assert.match(detail.body, /4 views, 1 clicks \(25%\)/);
  assert.match(detail.body, /<svg role="img" aria-label="Views by source: t\.co 4"/);
  assert.match(detail.body, /<svg role="img" aria-label="Clicks by platform: Spotify 1"/);
  assert.match(
    detail.body,
    /<svg role="img" aria-label="Smart-link views and clicks per day, [0-9-]+ to [0-9-]+: 4 views, 1 clicks"/,
  );

  const refused = await browser.get(`/console/smart-links/${theirs.id}`);
  assert.equal(refused.statusCode, 404);
  assert.ok(!list.body.includes(`/console/smart-links/${theirs.id}"`));
});
