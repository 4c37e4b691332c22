// The roles of a `labeldesk serve` process (`--role all|api|worker`) and its drain on SIGTERM, with
// real child processes on one database: an `api` process runs no jobs, a `worker` answers only
// `/api/v1/status`, two workers run each job once, and SIGTERM lets requests and jobs in flight
// finish, or gives the jobs back to the queue when they outlast the drain.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  cliJson,
  httpsApi,
  type Installation,
  newInstallation,
  type Reply,
  runLabeldesk,
  type Server,
  selectRows,
  send,
  startServer,
} from './helpers/installation.ts';
import { givenDraft } from './helpers/pipeline.ts';
import { type ReceivedDelivery, type Receiver, startReceiver } from './helpers/receiver.ts';

async function waitFor(what: string, ready: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await sleep(50);
  }
}

interface Setup {
  install: Installation;
  receiver: Receiver;
  key: string;
  /** `labeldesk serve` in a role, on this installation, trusting the receiver. */
  start(role: string, env?: Record<string, string>, args?: readonly string[]): Promise<Server>;
  /** A request to a process over its TLS listener, with the key. */
  api(server: Server, method: string, path: string, json?: unknown): Promise<Reply>;
}

/** An installation with a label on the Label plan, a key, and a receiver the processes may deliver to. */
async function setUp(t: TestContext, purpose: string): Promise<Setup> {
  const install = await newInstallation(purpose);
  const servers: Server[] = [];
  t.after(async () => {
    for (const server of servers) await server.kill();
    await install.dispose();
  });
  const receiver = await startReceiver(t);
  const caFile = join(install.dataDir, 'receiver-ca.pem');
  writeFileSync(caFile, receiver.ca);
  const { label } = await cliJson<{ label: { id: number } }>(
    install,
    'label create --name "Roles Records" --plan label --contract-signed',
  );
  const { key } = await cliJson<{ key: string }>(install, `key create --label ${label.id} --scopes all`);
  const env = { NODE_EXTRA_CA_CERTS: caFile, WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32' };
  return {
    install,
    receiver,
    key,
    async start(role, extra = {}, args = []) {
      const server = await startServer(install, { ...env, LABELDESK_ROLE: role, ...extra }, () => true, args);
      servers.push(server);
      return server;
    },
    api: (server, method, path, json) =>
      send(
        method,
        { protocol: 'https', port: server.port, path: `/api/v1${path}` },
        { headers: { authorization: `Bearer ${key}` }, ca: apiCa(install), json },
      ),
  };
}

/** The certificate `serve` generated into the data dir on its first start. */
function apiCa(install: Installation): string {
  return readFileSync(join(install.dataDir, 'tls', 'localhost-cert.pem'), 'utf8');
}

async function givenWebhook(s: Setup, server: Server, path: string): Promise<number> {
  const created = await s.api(server, 'POST', '/webhooks', {
    url: `${s.receiver.origin}${path}`,
    events: ['webhook.test'],
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return (created.body as { webhook: { id: number } }).webhook.id;
}

/** Asks for a test delivery; returns its delivery id. */
async function sendTest(s: Setup, server: Server, webhookId: number): Promise<string> {
  const reply = await s.api(server, 'POST', `/webhooks/${webhookId}/test`);
  assert.equal(reply.status, 202, JSON.stringify(reply.body));
  return (reply.body as { delivery_id: string }).delivery_id;
}

function deliveryIdOf(delivery: ReceivedDelivery): string {
  return String(delivery.headers['x-service-delivery-id']);
}

async function queuedDeliveries(install: Installation): Promise<Array<{ run_at: string; attempts: number }>> {
  return selectRows(install, "select run_at, attempts from jobs where kind = 'webhook.delivery'");
}

test('an api process runs no jobs; a worker runs them and answers only GET /api/v1/status', async (t) => {
  const s = await setUp(t, 'roles_split');
  const api = await s.start('api');
  assert.match(api.stderr(), /; role api: no jobs\)\n/);
  const webhookId = await givenWebhook(s, api, '/hooks/split');
  const deliveryId = await sendTest(s, api, webhookId);

  // Queued, and left alone by the api process however long it waits.
  await sleep(1500);
  assert.equal(s.receiver.received.length, 0);
  assert.equal((await queuedDeliveries(s.install)).length, 1);

  // `--role` on the command line wins over LABELDESK_ROLE.
  const worker = await s.start('api', {}, ['--role', 'worker']);
  assert.match(worker.stderr(), /; role worker: jobs, and only \/api\/v1\/status over HTTP\)\n/);
  await s.receiver.waitFor(1);
  assert.equal(deliveryIdOf(s.receiver.received[0] as ReceivedDelivery), deliveryId);

  const status = await s.api(worker, 'GET', '/status');
  assert.equal(status.status, 200);
  assert.equal((status.body as { status: string }).status, 'ok');
  for (const [method, path] of [
    ['GET', '/me'],
    ['POST', '/artists'],
    ['GET', '/openapi.json'],
    ['GET', '/plans'],
  ] as const) {
    const reply = await s.api(worker, method, path, method === 'POST' ? { name: 'Nobody' } : undefined);
    assert.equal(reply.status, 404, `${method} ${path}`);
    assert.deepEqual(Object.keys(reply.body as object).sort(), ['code', 'error']);
    assert.equal((reply.body as { code: string }).code, 'not_found');
  }
  const me = await s.api(api, 'GET', '/me');
  assert.equal(me.status, 200);
});

test('a role that does not exist stops serve with one line', async (t) => {
  const install = await newInstallation('roles_bad');
  t.after(() => install.dispose());
  const fromEnv = await runLabeldesk(install, ['serve'], { LABELDESK_ROLE: 'jobs', PORT: '0' });
  assert.deepEqual(
    { code: fromEnv.code, stderr: fromEnv.stderr },
    { code: 1, stderr: 'labeldesk: LABELDESK_ROLE: expected one of all, api, worker (got "jobs")\n' },
  );
  const fromFlag = await runLabeldesk(install, ['serve', '--role', 'jobs'], { PORT: '0' });
  assert.equal(fromFlag.code, 1);
  assert.match(
    fromFlag.stderr,
    /^labeldesk: option '--role <role>' argument 'jobs' is invalid\. Allowed choices are all, api, worker\.\n$/,
  );
});

test('two workers on one database: each recurring job exists once and each job runs once', async (t) => {
  const s = await setUp(t, 'roles_two_workers');
  const api = await s.start('api');
  const webhooks = [
    await givenWebhook(s, api, '/hooks/a'),
    await givenWebhook(s, api, '/hooks/b'),
    await givenWebhook(s, api, '/hooks/c'),
  ];
  const [first, second] = await Promise.all([s.start('worker'), s.start('worker')]);
  assert.ok(first && second);
  // Ten test deliveries a minute per webhook, queued while both workers poll.
  const deliveryIds = await Promise.all(
    webhooks.flatMap((id) => Array.from({ length: 10 }, () => sendTest(s, api, id))),
  );
  await s.receiver.waitFor(deliveryIds.length);
  await waitFor('the delivery queue to empty', async () => (await queuedDeliveries(s.install)).length === 0);
  await sleep(500);
  const received = s.receiver.received.map(deliveryIdOf).sort();
  assert.deepEqual(received, [...deliveryIds].sort(), 'every delivery arrived exactly once');

  // Both workers added the recurring jobs at their start: one row each, by its unique key.
  const recurring = await selectRows<{ kind: string; n: number | string }>(
    s.install,
    "select kind, count(*) as n from jobs where kind like 'prune.%' group by kind order by kind",
  );
  assert.deepEqual(
    recurring.map((row) => [row.kind, Number(row.n)]),
    [
      ['prune.distributor_signatures', 1],
      ['prune.events', 1],
      ['prune.idempotency', 1],
      ['prune.webhook_attempts', 1],
    ],
  );
});

/** A request whose body is sent in two parts, the second when the test says. */
function slowRequest(
  port: number,
  ca: string,
  key: string,
  body: string,
): { finish(): void; response: Promise<IncomingMessage & { text: string }> } {
  const bytes = Buffer.from(body);
  const half = Math.floor(bytes.length / 2);
  const req = httpsRequest({
    method: 'POST',
    hostname: 'localhost',
    port,
    path: '/api/v1/artists',
    agent: false,
    ca,
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'content-length': String(bytes.length),
    },
  });
  const response = new Promise<IncomingMessage & { text: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve(Object.assign(res, { text })));
    });
    req.on('error', reject);
  });
  req.write(bytes.subarray(0, half));
  return { finish: () => req.end(bytes.subarray(half)), response };
}

function connectionRefused(port: number, ca: string): Promise<string> {
  return new Promise((resolve) => {
    const req = httpsRequest(
      { hostname: 'localhost', port, path: '/api/v1/status', agent: false, ca },
      (res) => {
        res.resume();
        resolve(`answered ${res.statusCode}`);
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

test('SIGTERM: a request in flight is answered, an idle keep-alive connection closed, new ones refused, exit 0', async (t) => {
  const s = await setUp(t, 'roles_drain_http');
  const server = await s.start('api');
  const ca = apiCa(s.install);

  // A keep-alive connection left idle after one request.
  const agent = new HttpsAgent({ keepAlive: true, ca });
  t.after(() => agent.destroy());
  let idleClosed = false;
  await new Promise<void>((resolve, reject) => {
    httpsRequest({ hostname: 'localhost', port: server.port, path: '/api/v1/status', agent }, (res) => {
      res.socket.once('close', () => {
        idleClosed = true;
      });
      res.resume().on('end', resolve);
    })
      .on('error', reject)
      .end();
  });

  // Whitespace pads the JSON body, so that half of it is a few kilobytes.
  const upload = slowRequest(server.port, ca, s.key, `{"name": "Drained artist"${' '.repeat(4000)}}`);
  await sleep(300);
  const signalled = Date.now();
  const exited = server.terminate();
  await waitFor('the idle connection to close', () => idleClosed, 5000);
  assert.equal(await connectionRefused(server.port, ca), 'ECONNREFUSED');

  upload.finish();
  const answer = await upload.response;
  assert.equal(answer.statusCode, 201, answer.text);
  assert.equal(answer.headers.connection, 'close');
  assert.equal(await exited, 0);
  assert.ok(Date.now() - signalled < 10_000, `exited ${Date.now() - signalled} ms after SIGTERM`);
  const [artist] = await selectRows<{ n: number | string }>(
    s.install,
    "select count(*) as n from artists where name like 'Drained %'",
  );
  assert.equal(Number(artist?.n), 1);
});

test('SIGTERM: a delivery in flight to a slow receiver finishes before the worker exits', async (t) => {
  const s = await setUp(t, 'roles_drain_job');
  const api = await s.start('api');
  const worker = await s.start('worker');
  const webhookId = await givenWebhook(s, api, '/hooks/slow');
  s.receiver.answerWith(() => ({ status: 200, delayMs: 2000 }));
  await sendTest(s, api, webhookId);
  await s.receiver.waitFor(1);

  const signalled = Date.now();
  assert.equal(await worker.terminate(), 0);
  assert.ok(Date.now() - signalled >= 1500, 'the worker waited for the receiver');
  const attempts = await selectRows<{ ok: number | boolean }>(s.install, 'select ok from webhook_attempts');
  assert.deepEqual(
    attempts.map((row) => Number(row.ok)),
    [1],
  );
  assert.deepEqual(await queuedDeliveries(s.install), []);
});

test('SIGTERM: a job still running at the end of the drain is given back, and another worker takes it at once', async (t) => {
  const s = await setUp(t, 'roles_release');
  const api = await s.start('api');
  // A lease far longer than the test: only the release lets another worker take the job.
  const env = { WEBHOOK_TIMEOUT: '60s' };
  const worker = await s.start('worker', env);
  const webhookId = await givenWebhook(s, api, '/hooks/held');
  s.receiver.answerWith(() => ({ status: 200, delayMs: 120_000 }));
  const deliveryId = await sendTest(s, api, webhookId);
  await s.receiver.waitFor(1);

  const signalled = Date.now();
  assert.equal(await worker.terminate(), 0);
  const drainedMs = Date.now() - signalled;
  assert.ok(drainedMs < 10_000, `exited ${drainedMs} ms after SIGTERM`);
  const held = s.receiver.received[0] as ReceivedDelivery;
  assert.ok(held.closedAt !== null, 'the held request was cut off');

  // Given back: due now, the claim not counted, no attempt logged.
  const [job] = await queuedDeliveries(s.install);
  assert.ok(job, 'the delivery is still queued');
  assert.equal(Number(job.attempts), 0);
  assert.ok(Date.parse(job.run_at) <= Date.now(), `due at ${job.run_at}`);
  assert.deepEqual(await selectRows(s.install, 'select ok from webhook_attempts'), []);

  s.receiver.answerWith(() => ({ status: 200 }));
  await s.start('worker', env);
  const restarted = Date.now();
  await s.receiver.waitFor(2, 20_000);
  const again = s.receiver.received[1] as ReceivedDelivery;
  assert.equal(deliveryIdOf(again), deliveryId);
  assert.ok(again.receivedAt >= (held.closedAt ?? 0), 'never in flight twice at once');
  assert.ok(again.receivedAt - restarted < 20_000, 'taken without waiting for the 125 s lease');
});

interface FeedEvent {
  event: string;
  data: { release?: { id: number }; dsp?: string; stage?: string };
}

test('two workers: a release is moderated, walked through the platforms and a sandbox release goes live, each step once', async (t) => {
  const s = await setUp(t, 'roles_timers');
  const env = {
    DISTRIBUTOR_STEP: '200ms',
    DISTRIBUTOR_REJECT_RATE: '0',
    SANDBOX_LIVE_AFTER: '1s',
  };
  const api = await s.start('api', env);
  await Promise.all([s.start('worker', env), s.start('worker', env)]);
  const request = httpsApi(api.port, apiCa(s.install));
  const { label } = await cliJson<{ label: { id: number } }>(
    s.install,
    'label create --name "Timer Records" --plan pro --contract-signed',
  );
  const keys = await Promise.all(
    [[], ['--sandbox']].map((extra) =>
      cliJson<{ key: string }>(s.install, [
        'key',
        'create',
        '--label',
        String(label.id),
        '--scopes',
        'all',
        ...extra,
      ]),
    ),
  );

  const walked = await Promise.all(
    keys.map(async ({ key }) => {
      const { releaseId } = await givenDraft(request, key);
      const submitted = await request('POST', `/api/v1/releases/${releaseId}/submit`, {
        key,
        payload: { confirm_rights: true },
      });
      assert.equal(submitted.statusCode, 202, submitted.body);
      const events = async () => {
        const answer = await request('GET', '/api/v1/events?limit=200', { key });
        return (JSON.parse(answer.body) as { events: FeedEvent[] }).events.filter(
          (event) => event.data.release?.id === releaseId,
        );
      };
      await waitFor(
        'the release to be live and its platforms walked',
        async () =>
          (await events()).some((event) => event.event === 'release.live') &&
          (
            await selectRows(
              s.install,
              "select id from jobs where kind like 'distributor.%' or kind like 'moderation.%'",
            )
          ).length === 0,
        60_000,
      );
      return events();
    }),
  );
  for (const events of walked) {
    const counts = countOf(
      events.map((event) => [event.event, event.data.dsp, event.data.stage].filter(Boolean).join(' ')),
    );
    assert.ok(Object.keys(counts).some((name) => name.startsWith('release.dsp_status ')));
    assert.deepEqual(
      Object.entries(counts).filter(([, n]) => n > 1),
      [],
      'no event twice',
    );
    assert.equal(counts['release.live'], 1);
  }
});

function countOf(names: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const name of names) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}
