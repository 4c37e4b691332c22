import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FLUSH_BATCH } from '../../../src/modules/smart-links/link-counts.ts';
import {
  cliJson,
  type Installation,
  newInstallation,
  selectRows,
  startServer,
} from '../../helpers/installation.ts';
import { IPHONE, SPOTIFY_URL } from './link-pages.fixtures.ts';

/*
 * `labeldesk serve` behind a proxy (TRUST_PROXY), so that each view can come from a client address
 * of its own: the per-address limit would otherwise stop counting after 30.
 */

const VIEWS = 1_500;
const IN_FLIGHT = 20;

async function givenLinkOnServer(install: Installation, port: number): Promise<{ code: string }> {
  const { label } = await cliJson<{ label: { id: number } }>(
    install,
    'label create --name "Burst" --plan label',
  );
  const { key } = await cliJson<{ key: string }>(install, `key create --label ${label.id} --scopes all`);
  const response = await fetch(`http://127.0.0.1:${port}/api/v1/smart-links`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'x-forwarded-proto': 'https',
    },
    body: JSON.stringify({
      title: 'Night Drive',
      artist_name: 'Mira Vale',
      release_date: '2026-02-20',
      targets: [{ platform: 'spotify', url: SPOTIFY_URL }],
    }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  return ((await response.json()) as { smart_link: { code: string } }).smart_link;
}

/** VIEWS page views, IN_FLIGHT at a time, each from its own address; resolves once all are answered. */
async function burst(port: number, code: string): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < VIEWS) {
      const i = next++;
      const response = await fetch(`http://127.0.0.1:${port}/l/${code}`, {
        headers: {
          'user-agent': IPHONE,
          'x-forwarded-proto': 'https',
          'x-forwarded-for': `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`,
        },
      });
      assert.equal(response.status, 200);
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

async function stored(install: Installation): Promise<{ views: number; rollup: number }> {
  const [link] = await selectRows<{ views: number }>(install, 'select views from smart_links');
  const [label] = await selectRows<{ views: number }>(
    install,
    'select sum(views) as views from label_traffic_days',
  );
  return { views: Number(link?.views), rollup: Number(label?.views) };
}

async function burstThen(
  stop: 'terminate' | 'kill',
  t: test.TestContext,
): Promise<{ views: number; rollup: number }> {
  const install = await newInstallation(`counts_${stop}`);
  t.after(() => install.dispose());
  const server = await startServer(install, { TRUST_PROXY: '127.0.0.1' });
  t.after(() => server.stop());
  const link = await givenLinkOnServer(install, server.port);
  await burst(server.port, link.code);
  if (stop === 'terminate') assert.equal(await server.terminate(), 0);
  else assert.equal(await server.kill(), 'SIGKILL');
  return stored(install);
}

test('SIGTERM right after a burst of views: every answered view is written before the process exits', async (t) => {
  assert.deepEqual(await burstThen('terminate', t), { views: VIEWS, rollup: VIEWS });
});

test('SIGKILL right after a burst of views loses at most what one interval holds', async (t) => {
  const counted = await burstThen('kill', t);
  t.diagnostic(
    `SIGKILL after ${VIEWS} answered views: ${counted.views} written, ${VIEWS - counted.views} lost`,
  );
  assert.equal(counted.rollup, counted.views);
  assert.ok(counted.views <= VIEWS);
  assert.ok(counted.views >= VIEWS - FLUSH_BATCH, `${counted.views} of ${VIEWS} written`);
});
