// The proof of scale-out with real parts: two `api` processes and one `worker` on one PostgreSQL
// database and one Redis, each process with a data dir of its own, and a client that alternates
// between the two API processes (and, when nginx is installed, nginx in front of them, configured by
// examples/nginx.conf).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import Stripe from 'stripe';
import { STEREO_CD } from './helpers/audio.ts';
import {
  type Answer,
  type Cluster,
  RoundRobinClient,
  startCluster,
  testClientAddress,
} from './helpers/cluster.ts';
import { TEST_DATABASE, TEST_REDIS_URL } from './helpers/harness.ts';
import { cliJson, runLabeldesk, selectRows } from './helpers/installation.ts';
import { NGINX_BIN, startNginx } from './helpers/nginx.ts';
import { coverPng, givenDraft, noiseWav } from './helpers/pipeline.ts';
import {
  type ReceivedDelivery,
  type Receiver,
  receiverCertificate,
  startReceiver,
} from './helpers/receiver.ts';
import { type S3Server, startS3Server } from './helpers/s3.ts';

const skip =
  TEST_DATABASE !== 'postgres'
    ? 'several processes share one PostgreSQL database: run with TEST_DATABASE=postgres'
    : TEST_REDIS_URL === null
      ? 'several processes share one Redis: set TEST_REDIS_URL'
      : false;

/** Deliveries time out after this; a claim's lease is 2 * 2 s + 5 s = 9 s, what a killed worker leaves behind. */
const WEBHOOK_TIMEOUT = '2s';
const BURST_WEBHOOKS = 100;
/** The most tests one webhook takes in a minute. */
const TESTS_PER_WEBHOOK = 10;

const stripe = new Stripe('sk_test_unused');

async function waitFor(what: string, ready: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await sleep(25);
  }
}

/** Runs `work` over `items` with at most `width` in flight. */
async function inParallel<T, R>(
  items: readonly T[],
  width: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const index = next;
        next += 1;
        results[index] = await work(items[index] as T);
      }
    }),
  );
  return results;
}

function countBy<T>(items: readonly T[], keyOf: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[keyOf(item)] = (counts[keyOf(item)] ?? 0) + 1;
  return counts;
}

describe('two api processes and a worker on one PostgreSQL and one Redis', { skip }, () => {
  let cluster: Cluster;
  let receiver: Receiver;
  let client: RoundRobinClient;
  let certFile: string;
  let keyFile: string;
  let s3: S3Server;

  /** A label made through the command line, on `plan` with `limits` overridden, and a key of it. */
  async function newLabel(
    name: string,
    plan: string,
    limits: readonly string[] = [],
  ): Promise<{ key: string; prefix: string }> {
    const { label } = await cliJson<{ label: { id: number } }>(cluster.install, [
      'label',
      'create',
      '--name',
      name,
      '--plan',
      plan,
      '--contract-signed',
    ]);
    if (limits.length > 0) {
      await cliJson(cluster.install, [
        'label',
        'update',
        String(label.id),
        ...limits.flatMap((l) => ['--limit', l]),
      ]);
    }
    return cliJson<{ key: string; prefix: string }>(cluster.install, [
      'key',
      'create',
      '--label',
      String(label.id),
      '--scopes',
      'all',
    ]);
  }

  before(async () => {
    receiver = await startReceiver();
    s3 = await startS3Server();
    const { cert, key } = await receiverCertificate();
    cluster = await startCluster('scale_out', {
      redisUrl: String(TEST_REDIS_URL),
      env: { ...s3.env, WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32', WEBHOOK_TIMEOUT, DISTRIBUTOR_REJECT_RATE: '0' },
    });
    // The receiver's certificate names localhost and 127.0.0.1: it serves as nginx's too.
    const caFile = join(cluster.install.dataDir, 'test-ca.pem');
    certFile = caFile;
    keyFile = join(cluster.install.dataDir, 'test-key.pem');
    writeFileSync(caFile, cert);
    writeFileSync(keyFile, key);
    cluster.env.NODE_EXTRA_CA_CERTS = caFile;
    const [api1, api2, worker] = await Promise.all([
      cluster.start('api'),
      cluster.start('api'),
      cluster.start('worker'),
    ]);
    cluster.apis.push(api1, api2);
    cluster.workers.push(worker);
    client = new RoundRobinClient(() => cluster.apis.map((api) => api.port), testClientAddress());
  });

  after(async () => {
    await cluster?.dispose();
    await receiver?.close();
    await s3?.close();
  });

  test('a cover and a track uploaded through one process are served and moderated through the other', async () => {
    const { key } = await newLabel('Media Records', 'label', ['rate=100000']);
    const [uploadedTo, servedBy] = cluster.apis.map((api) => api.port);
    assert.ok(uploadedTo && servedBy);
    const { releaseId } = await givenDraft(client.apiRequest(uploadedTo), key, {
      tracks: [{ title: 'Harbour Lights', audio: noiseWav(STEREO_CD, 7) }],
    });

    const cover = await coverPng();
    const coverPath = `/media/covers/${createHash('sha256').update(cover).digest('hex')}.png`;
    const served = await client.fetch(coverPath, {}, servedBy);
    assert.equal(served.status, 200);
    assert.ok(Buffer.from(await served.arrayBuffer()).equals(cover), 'the very bytes uploaded');
    const resized = await client.fetch(`${coverPath}?w=300`, {}, servedBy);
    assert.equal(resized.status, 200);
    assert.equal((await sharp(Buffer.from(await resized.arrayBuffer())).metadata()).width, 300);

    // The worker, with a data dir of its own, reads the audio from the bucket to review it.
    const submitted = await client.request('POST', `/releases/${releaseId}/submit`, {
      key,
      port: servedBy,
      json: { confirm_rights: true },
    });
    assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
    let release: { status: string; review_status: string | null; review_comment: string | null } | undefined;
    await waitFor(
      'the review',
      async () => {
        const answer = await client.request('GET', `/releases/${releaseId}`, { key });
        release = (answer.body as { release: typeof release }).release;
        return release?.review_status !== 'pending';
      },
      60_000,
    );
    assert.deepEqual(
      { review_status: release?.review_status, review_comment: release?.review_comment },
      { review_status: 'approved', review_comment: 'Automated checks passed' },
    );
  });

  test('one rate budget: 200 requests over both processes on a 60-a-minute key get exactly 60 answers', async () => {
    const { key } = await newLabel('Budget Records', 'start');
    const answers = await inParallel(
      Array.from({ length: 200 }, (_, i) => i),
      8,
      () => client.request('GET', '/me', { key }),
    );
    const statuses = countBy(answers, (answer) => String(answer.status));
    assert.deepEqual(statuses, { 200: 60, 429: 140 });
    const served = countBy(
      answers.filter((answer) => answer.status === 200),
      (answer) => String(answer.port),
    );
    assert.equal(Object.keys(served).length, 2, `both processes served: ${JSON.stringify(served)}`);
  });

  test('one failed-authentication budget: 60 refusals a minute per address over both processes, then 429', async () => {
    // A client address of its own: the refusals spend its budget for the next minute.
    const stranger = new RoundRobinClient(() => cluster.apis.map((api) => api.port), testClientAddress());
    const answers = await inParallel(
      Array.from({ length: 90 }, (_, i) => i),
      8,
      () => stranger.request('GET', '/me', { key: 'svc_live_notakey0000000000000000' }),
    );
    assert.deepEqual(
      countBy(answers, (answer) => String(answer.status)),
      { 401: 60, 429: 30 },
    );
  });

  test('an Idempotency-Key used on one process replays on the other; sent to both at once it runs once', async () => {
    const { key } = await newLabel('Idempotent Records', 'label');
    const [api1, api2] = cluster.apis.map((api) => api.port);
    const create = (port: number | undefined, idempotencyKey: string, name: string) =>
      client.request('POST', '/artists', {
        key,
        port,
        json: { name },
        headers: { 'idempotency-key': idempotencyKey },
      });

    const first = await create(api1, 'replay-1', 'Replayed Artist');
    const again = await create(api2, 'replay-1', 'Replayed Artist');
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.deepEqual({ status: again.status, body: again.body }, { status: 201, body: first.body });
    assert.equal(again.headers.get('idempotent-replayed'), 'true');

    const both = await Promise.all([
      create(api1, 'race-1', 'Raced Artist'),
      create(api2, 'race-1', 'Raced Artist'),
    ]);
    const created = both.filter((answer) => answer.status === 201);
    assert.ok(created.length >= 1, JSON.stringify(both.map((answer) => answer.body)));
    for (const answer of both) {
      if (answer.status === 201) assert.deepEqual(answer.body, created[0]?.body);
      else
        assert.deepEqual(
          [answer.status, (answer.body as { code: string }).code],
          [409, 'idempotency_in_progress'],
        );
    }
    const rows = await selectRows<{ name: string; n: string }>(
      cluster.install,
      "select name, count(*) as n from artists where name in ('Replayed Artist', 'Raced Artist') group by name order by name",
    );
    assert.deepEqual(
      rows.map((row) => [row.name, Number(row.n)]),
      [
        ['Raced Artist', 1],
        ['Replayed Artist', 1],
      ],
    );
  });

  test('a key revoked through the command line is refused by both processes within 100 ms', async (t) => {
    const { key, prefix } = await newLabel('Revoked Records', 'label', ['rate=100000']);
    const ports = cluster.apis.map((api) => api.port);
    for (const port of ports) assert.equal((await client.request('GET', '/me', { key, port })).status, 200);
    const revoked = await runLabeldesk(cluster.install, ['key', 'revoke', prefix], cluster.env);
    assert.equal(revoked.code, 0, revoked.stderr);
    const committed = Date.now();
    // Each process is asked again and again; what counts is when the first refused request was sent.
    const refusedAfter = await Promise.all(
      ports.map(async (port) => {
        for (;;) {
          const sent = Date.now();
          const answer = await client.request('GET', '/me', { key, port });
          if (answer.status === 401) return sent - committed;
          assert.equal(answer.status, 200);
          if (sent - committed > 5000) return sent - committed;
          await sleep(5);
        }
      }),
    );
    t.diagnostic(`refused ${refusedAfter.join(' and ')} ms after the command exited`);
    for (const ms of refusedAfter) assert.ok(ms <= 100, `refused ${ms} ms after the revocation`);
  });

  test('a burst of 1,000 events, the worker killed midway and started again: every delivery made, signed, never twice at once', async (t) => {
    const { key } = await newLabel('Burst Records', 'enterprise', [
      `webhooks=${BURST_WEBHOOKS}`,
      'rate=100000',
    ]);
    const webhooks = await inParallel(
      Array.from({ length: BURST_WEBHOOKS }, (_, i) => i),
      8,
      async (i) => {
        const answer = await client.request('POST', '/webhooks', {
          key,
          json: { url: `${receiver.origin}/burst/${i}`, events: ['webhook.test'] },
        });
        assert.equal(answer.status, 201, JSON.stringify(answer.body));
        return (answer.body as { webhook: { id: number; secret: string } }).webhook;
      },
    );
    const secretOfPath = new Map(webhooks.map((webhook, i) => [`/burst/${i}`, webhook.secret]));
    const start = receiver.received.length;
    const burst = () => receiver.received.slice(start);
    // A little wait in each answer keeps deliveries on the wire when the kill comes.
    receiver.answerWith(() => ({ status: 200, delayMs: 20 }));

    const tests = webhooks.flatMap((webhook) => Array.from({ length: TESTS_PER_WEBHOOK }, () => webhook.id));
    const publishing = inParallel(tests, 16, async (id) => {
      const answer = await client.request('POST', `/webhooks/${id}/test`, { key });
      assert.equal(answer.status, 202, JSON.stringify(answer.body));
      return (answer.body as { delivery_id: string }).delivery_id;
    });
    const [worker] = cluster.workers;
    assert.ok(worker);
    await waitFor('a third of the deliveries', () => burst().length >= tests.length / 3, 60_000);
    assert.equal(await worker.server.kill(), 'SIGKILL');
    const atKill = burst().length;
    assert.ok(atKill < tests.length, 'killed before every delivery was made');
    const deliveryIds = await publishing;
    cluster.workers[0] = await cluster.start('worker');

    const delivered = () => new Set(burst().map((d) => String(d.headers['x-service-delivery-id'])));
    await waitFor('every delivery', () => deliveryIds.every((id) => delivered().has(id)), 90_000);
    await waitFor(
      'the delivery queue to empty',
      async () =>
        Number(
          (
            await selectRows<{ n: string }>(
              cluster.install,
              "select count(*) as n from jobs where kind = 'webhook.delivery'",
            )
          )[0]?.n,
        ) === 0,
      30_000,
    );

    const attemptsOf = new Map<string, ReceivedDelivery[]>();
    for (const delivery of burst()) {
      const id = String(delivery.headers['x-service-delivery-id']);
      const secret = secretOfPath.get(delivery.path);
      assert.ok(secret, `a delivery to ${delivery.path}`);
      const event = stripe.webhooks.constructEvent(
        delivery.body,
        String(delivery.headers['x-service-signature']),
        secret,
      ) as unknown as { id: string };
      assert.equal(event.id, id);
      attemptsOf.set(id, [...(attemptsOf.get(id) ?? []), delivery]);
    }
    assert.deepEqual([...attemptsOf.keys()].sort(), [...deliveryIds].sort());
    t.diagnostic(
      `${atKill} deliveries had arrived at the kill; ${burst().length} requests in all for ${deliveryIds.length} deliveries`,
    );
    for (const [id, attempts] of attemptsOf) {
      const inOrder = [...attempts].sort((a, b) => a.receivedAt - b.receivedAt);
      for (let i = 1; i < inOrder.length; i += 1) {
        const previous = inOrder[i - 1] as ReceivedDelivery;
        const next = inOrder[i] as ReceivedDelivery;
        assert.ok(
          previous.closedAt !== null && previous.closedAt <= next.receivedAt,
          `delivery ${id} was attempted twice at once`,
        );
      }
    }
  });

  test('a rolling restart under steady load: SIGTERM one api process, start it again; no accepted request lost', async (t) => {
    const { key } = await newLabel('Rolling Records', 'enterprise', ['rate=100000']);
    const [restarting] = cluster.apis;
    assert.ok(restarting);
    let stop = false;
    let sent = 0;
    const refused: string[] = [];
    const outcomes: Answer[] = [];
    /** One logical request: tried on the next process, and again elsewhere while none took it. */
    const createArtist = async (n: number): Promise<void> => {
      for (let attempt = 0; attempt < 50; attempt += 1) {
        try {
          const answer = await client.request('POST', '/artists', {
            key,
            json: { name: `Rolling ${n}` },
            headers: { 'idempotency-key': `rolling-${n}` },
          });
          outcomes.push(answer);
          if (answer.status !== 409) return;
        } catch (error) {
          const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
          refused.push(String((cause as NodeJS.ErrnoException).code ?? cause));
        }
        await sleep(20);
      }
    };
    const load = Promise.all(
      Array.from({ length: 4 }, async () => {
        while (!stop) {
          sent += 1;
          await createArtist(sent);
        }
      }),
    );
    await sleep(1000);
    const port = restarting.port;
    assert.equal(await restarting.server.terminate(), 0);
    cluster.apis[0] = await cluster.start('api', port);
    const before = outcomes.length;
    await waitFor(
      'the restarted process to answer',
      () => outcomes.slice(before).some((o) => o.port === port),
      20_000,
    );
    stop = true;
    await load;

    assert.deepEqual(
      countBy(outcomes, (o) => String(o.status)),
      { 201: outcomes.length },
      'every answer a 201',
    );
    const names = await selectRows<{ name: string }>(
      cluster.install,
      "select name from artists where name like 'Rolling %'",
    );
    assert.equal(names.length, sent, 'one artist per request, none lost and none twice');
    assert.equal(new Set(names.map((row) => row.name)).size, sent);
    for (const code of refused) assert.match(code, /^(ECONNREFUSED|ECONNRESET|UND_ERR_SOCKET)$/);
    t.diagnostic(
      `${sent} requests, ${outcomes.length} answers; not taken and tried again elsewhere: ${JSON.stringify(countBy(refused, (code) => code))}`,
    );
  });

  test('nginx in front (examples/nginx.conf): TLS ends at nginx, requests alternate between the processes', {
    skip: NGINX_BIN === null ? 'nginx is not installed (apt-get install nginx)' : false,
  }, async (t) => {
    const { key } = await newLabel('Proxied Records', 'label');
    const nginx = await startNginx({
      apis: cluster.apis.map((api) => `127.0.0.1:${api.port}`),
      certFile,
      keyFile,
    });
    t.after(() => nginx.close());
    const { cert } = await receiverCertificate();
    const viaNginx = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
      new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
        const req = httpsRequest(
          {
            method,
            hostname: 'localhost',
            port: nginx.port,
            path: `/api/v1${path}`,
            ca: cert,
            agent: false,
            headers: {
              authorization: `Bearer ${key}`,
              ...(body !== undefined && { 'content-type': 'application/json' }),
              ...headers,
            },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8').on('data', (chunk: string) => {
              text += chunk;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });

    const logged = () =>
      cluster.apis.map((api) => api.server.stdout().split('"url":"/api/v1/me"').length - 1);
    const before = logged();
    for (let i = 0; i < 10; i += 1) {
      const me = await viaNginx('GET', '/me');
      assert.equal(me.status, 200, me.body);
      // The API process saw HTTPS through its trusted proxy.
      assert.equal(me.headers['strict-transport-security'], 'max-age=31536000');
    }
    // Request lines are written in batches, at least once a second.
    await waitFor(
      'the request lines',
      () => logged().reduce((a, b) => a + b, 0) - before.reduce((a, b) => a + b, 0) >= 10,
      5000,
    );
    assert.deepEqual(
      logged().map((count, i) => count - (before[i] ?? 0)),
      [5, 5],
    );

    const body = JSON.stringify({ name: 'Proxied Artist' });
    const first = await viaNginx('POST', '/artists', { 'idempotency-key': 'proxied-1' }, body);
    const again = await viaNginx('POST', '/artists', { 'idempotency-key': 'proxied-1' }, body);
    assert.equal(first.status, 201, first.body);
    assert.deepEqual(
      [again.status, again.body, again.headers['idempotent-replayed']],
      [201, first.body, 'true'],
    );
  });
});
