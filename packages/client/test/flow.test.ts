// The client against a real `labeldesk serve` (issue 22): a label's whole flow through typed calls,
// paginate() over Link headers, feed() over GET /events, errors as LabeldeskApiError with their fields,
// Idempotency-Key on every POST, and a real 429 with its Retry-After.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cliJson, httpsApi } from '../../../test/helpers/installation.ts';
import { givenDraft, noiseWav } from '../../../test/helpers/pipeline.ts';
import { createLabeldeskClient, type FeedEvent, feed, LabeldeskApiError, paginate } from '../src/index.ts';
import { newKey, newLabel, type Served, serve } from './served.ts';

/** Resolves with the error `work` was rejected with; fails when it resolved. */
async function rejection(work: Promise<unknown>): Promise<LabeldeskApiError> {
  try {
    await work;
  } catch (error) {
    assert.ok(error instanceof LabeldeskApiError, String(error));
    return error;
  }
  assert.fail('the call did not throw');
}

describe('@labeldesk/client against labeldesk serve', () => {
  let served: Served;
  /** A key of a second label whose rate limit is 2 requests a minute. */
  let slowKey: string;
  let readOnlyKey: string;

  before(async () => {
    served = await serve('client_flow', async (install) => {
      const labelId = await newLabel(install, 'Slow Records');
      await cliJson(install, ['label', 'update', String(labelId), '--limit', 'rate=2']);
      slowKey = await newKey(install, labelId, 'all');
    });
    readOnlyKey = await newKey(served.install, served.labelId, 'catalog:read');
  });
  after(() => served?.dispose());

  const client = (apiKey = served.key, fetch = served.fetch) =>
    createLabeldeskClient({ baseUrl: served.origin, apiKey, fetch });

  test('artist, draft release, smart link and its statistics, through typed calls', async () => {
    const api = client();
    const { data: created, response } = await api.POST('/api/v1/artists', { body: { name: 'Mira Vale' } });
    assert.equal(response.status, 201);
    const artistId = created.artist.id;

    const { data: draft } = await api.POST('/api/v1/releases', {
      body: {
        artist_id: artistId,
        type: 'single',
        title: 'Night Drive',
        genre: 'Pop',
        release_date: '2027-03-01',
      },
    });
    assert.deepEqual(
      { status: draft.release.status, title: draft.release.title, artist: draft.release.artist.id },
      { status: 'draft', title: 'Night Drive', artist: artistId },
    );
    const { data: read } = await api.GET('/api/v1/releases/{id}', {
      params: { path: { id: draft.release.id } },
    });
    assert.equal(read.release.id, draft.release.id);

    const { data: link } = await api.POST('/api/v1/smart-links', {
      body: {
        title: 'Night Drive',
        artist_name: 'Mira Vale',
        release_date: '2027-03-01',
        release_id: draft.release.id,
        targets: [{ platform: 'spotify', url: 'https://open.spotify.com/album/abc' }],
      },
    });
    const { data: stats } = await api.GET('/api/v1/smart-links/{id}/stats', {
      params: { path: { id: link.smart_link.id } },
    });
    assert.deepEqual(stats.totals, { views: 0, clicks: 0, rate_percent: 0, presaves: 0 });
  });

  test('feed() reads submitted releases in order and goes on from a stored cursor', async () => {
    const api = client();
    const request = httpsApi(Number(new URL(served.origin).port), served.ca);
    const releaseIds: number[] = [];
    for (const title of ['First Light', 'Second Wind']) {
      const { releaseId } = await givenDraft(request, served.key, {
        type: 'single',
        title,
        tracks: [{ title, audio: noiseWav(undefined, releaseIds.length + 1) }],
      });
      const { response } = await api.POST('/api/v1/releases/{id}/submit', {
        params: { path: { id: releaseId } },
        body: { confirm_rights: true },
      });
      assert.equal(response.status, 202);
      releaseIds.push(releaseId);
    }

    /** The first `count` events of the kind from `after`, one per request (limit 1 makes has_more true). */
    const read = async (after: number, count: number): Promise<FeedEvent[]> => {
      const stop = new AbortController();
      const events: FeedEvent[] = [];
      const timeout = setTimeout(() => stop.abort(), 10_000);
      for await (const event of feed(api, {
        after,
        types: ['release.review_pending'],
        limit: 1,
        intervalMs: 50,
        signal: stop.signal,
      })) {
        events.push(event);
        if (events.length === count) stop.abort();
      }
      clearTimeout(timeout);
      return events;
    };
    const events = await read(0, 2);
    const releaseOf = (event: FeedEvent) => (event.data.release as { id: number }).id;
    assert.deepEqual(
      events.map((event) => [event.event, releaseOf(event)]),
      releaseIds.map((id) => ['release.review_pending', id]),
    );
    assert.ok((events[0]?.id ?? 0) < (events[1]?.id ?? 0));

    // The cursor a caller stores is the id of the last event it processed.
    const rest = await read(events[0]?.id ?? 0, 1);
    assert.deepEqual(rest.map(releaseOf), [releaseIds[1]]);
  });

  test('paginate() follows Link rel="next" and yields every item of every page', async () => {
    const own = await newKey(served.install, await newLabel(served.install, 'Paged Records'), 'all');
    const api = client(own);
    const names = ['Ada', 'Bex', 'Cal', 'Dee', 'Eli', 'Fay', 'Gus'];
    for (const name of names) await api.POST('/api/v1/artists', { body: { name } });

    const pages: string[] = [];
    const recording = createLabeldeskClient({
      baseUrl: served.origin,
      apiKey: own,
      fetch: (request) => {
        pages.push(new URL(request.url).search);
        return served.fetch(request);
      },
    });
    const seen: string[] = [];
    for await (const artist of paginate(recording, '/api/v1/artists', {
      params: { query: { per_page: 3 } },
    })) {
      seen.push(artist.name);
    }
    assert.deepEqual(seen.sort(), names);
    assert.deepEqual(pages, ['?per_page=3', '?page=2&per_page=3', '?page=3&per_page=3']);
  });

  test('an error is a LabeldeskApiError with its code and documented fields', async () => {
    const api = client();
    const invalid = await rejection(
      api.POST('/api/v1/smart-links', {
        body: {
          title: 'Night Drive',
          artist_name: 'Mira Vale',
          release_date: '2027-03-01',
          targets: [{ platform: 'spotify', url: 'ftp://example.com/x' }],
        },
      }),
    );
    assert.deepEqual(
      { name: invalid.name, status: invalid.status, code: invalid.code, field: invalid.field },
      { name: 'LabeldeskApiError', status: 400, code: 'invalid', field: 'targets.0.url' },
    );
    assert.equal(invalid.message, invalid.body.error);
    assert.match(invalid.requestId ?? '', /.+/);

    const missing = await rejection(api.GET('/api/v1/artists/{id}', { params: { path: { id: 999_999 } } }));
    assert.deepEqual([missing.status, missing.code], [404, 'not_found']);

    const forbidden = await rejection(
      client(readOnlyKey).POST('/api/v1/artists', { body: { name: 'Nope' } }),
    );
    assert.deepEqual(
      { status: forbidden.status, code: forbidden.code, requiredScope: forbidden.requiredScope },
      { status: 403, code: 'forbidden', requiredScope: 'catalog:write' },
    );
    assert.equal(forbidden.body.required_scope, 'catalog:write');
  });

  test("every POST carries an Idempotency-Key: a new one per call, or the caller's, which replays", async () => {
    const sent: Array<string | null> = [];
    const api = client(served.key, (request) => {
      sent.push(request.headers.get('idempotency-key'));
      return served.fetch(request);
    });
    const first = await api.POST('/api/v1/artists', { body: { name: 'Auto One' } });
    const second = await api.POST('/api/v1/artists', { body: { name: 'Auto Two' } });
    assert.notEqual(first.data.artist.id, second.data.artist.id);
    assert.equal(first.response.headers.get('idempotent-replayed'), null);
    const [one, two] = sent;
    assert.match(one ?? '', /^[0-9a-f-]{36}$/);
    assert.match(two ?? '', /^[0-9a-f-]{36}$/);
    assert.notEqual(one, two);

    const explicit = { headers: { 'Idempotency-Key': `replay-${Date.now()}` }, body: { name: 'Once Only' } };
    const original = await api.POST('/api/v1/artists', explicit);
    const replayed = await api.POST('/api/v1/artists', explicit);
    assert.deepEqual(replayed.data, original.data);
    assert.equal(replayed.response.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(sent.slice(2), [
      explicit.headers['Idempotency-Key'],
      explicit.headers['Idempotency-Key'],
    ]);

    // A GET carries none.
    await api.GET('/api/v1/me');
    assert.equal(sent.at(-1), null);
  });

  test('a real 429 whose Retry-After is longer than maxDelaySeconds is thrown at once, with retryAfter', async () => {
    const attempts: string[] = [];
    const api = createLabeldeskClient({
      baseUrl: served.origin,
      apiKey: slowKey,
      retry: { attempts: 4, maxDelaySeconds: 5 },
      fetch: (request) => {
        attempts.push(request.method);
        return served.fetch(request);
      },
    });
    await api.GET('/api/v1/me');
    await api.GET('/api/v1/me');
    const started = Date.now();
    const limited = await rejection(api.GET('/api/v1/me'));
    assert.deepEqual([limited.status, limited.code], [429, 'rate_limited']);
    assert.ok(
      (limited.retryAfter ?? 0) > 5 && (limited.retryAfter ?? 0) <= 60,
      `Retry-After ${limited.retryAfter}`,
    );
    assert.equal(attempts.length, 3, 'the 429 was not retried');
    assert.ok(Date.now() - started < 2000);
  });
});
