import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { givenRelease } from './catalog.ts';
import { buildHarness, call, givenKey, givenLabel, type Harness, json } from './harness.ts';

export const SECRET = 'distributor-inbound-test-secret-0123456789';
export const PATH = '/distributor/v1/reports';
export const START = '2026-03-02T10:00:00.000Z';
export const UPC = '036000291452';

export function sign(body: string, t: number | string, secret = SECRET): string {
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}

export function unixNow(h: Harness): number {
  return Math.floor(h.clock.now().getTime() / 1000);
}

/** POSTs `body` (a string is sent byte for byte) signed now, unless `signature` says otherwise. */
export function postReports(
  h: Harness,
  body: unknown,
  options: { signature?: string | null; remoteAddress?: string } = {},
): Promise<LightMyRequestResponse> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const signature = options.signature === undefined ? sign(text, unixNow(h)) : options.signature;
  return call(h, 'POST', PATH, {
    headers: {
      'content-type': 'application/json',
      ...(signature !== null && { 'x-distributor-signature': signature }),
    },
    payload: text,
    ...(options.remoteAddress && { remoteAddress: options.remoteAddress }),
  });
}

export interface Scene {
  h: Harness;
  key: string;
  labelId: number;
  releaseId: number;
  artistId: number;
}

/** A label with a key and one release at the distributor (moderation approved it). */
export async function scene(
  t: Parameters<typeof buildHarness>[0],
  env = { DISTRIBUTOR_SECRET: SECRET },
): Promise<Scene> {
  const h = await buildHarness(t, { env });
  const label = await givenLabel(h, { contractSigned: true });
  const key = await givenKey(h, label.id);
  const release = await givenRelease(h, label.id, { status: 'submitted', upc: UPC, submitted_at: START });
  return { h, key, labelId: label.id, releaseId: release.id, artistId: release.artist_id };
}

async function getJson(s: Scene, url: string): Promise<unknown> {
  const response = await call(s.h, 'GET', url, { key: s.key });
  assert.equal(response.statusCode, 200, response.body);
  return json(response);
}

export async function dspStatuses(s: Scene, releaseId = s.releaseId): Promise<unknown> {
  return getJson(s, `/api/v1/releases/${releaseId}/dsp-status`);
}

export async function events(s: Scene): Promise<Array<{ event: string; data: unknown }>> {
  const feed = (await getJson(s, '/api/v1/events')) as { events: Array<{ event: string; data: unknown }> };
  return feed.events.map(({ event, data }) => ({ event, data }));
}

export async function releaseCard(s: Scene, releaseId = s.releaseId) {
  const body = (await getJson(s, `/api/v1/releases/${releaseId}`)) as {
    release: { status: string; store_links: Record<string, string> };
  };
  return { status: body.release.status, store_links: body.release.store_links };
}

export function assertError(
  response: LightMyRequestResponse,
  status: number,
  body: Record<string, unknown>,
): void {
  assert.deepEqual({ status: response.statusCode, body: json(response) }, { status, body });
}

export async function assertUntouched(s: Scene): Promise<void> {
  assert.deepEqual(await dspStatuses(s), { release_id: s.releaseId, dsp_statuses: [] });
  assert.deepEqual(await events(s), []);
  assert.deepEqual(await releaseCard(s), { status: 'submitted', store_links: {} });
}
