import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimDueJobs, countJobs } from '../../src/jobs/jobs.store.ts';
import { enqueue } from '../../src/jobs/queue.ts';
import { createWorker, type Job, type RecordWriter, recordOf } from '../../src/jobs/worker.ts';
import { buildHarness, type Harness } from '../helpers/harness.ts';

const LEASE_MS = 25_000;

async function queued(h: Harness, kind: string, payloads: unknown[]): Promise<void> {
  const now = h.clock.now();
  await enqueue(
    h.ctx.db,
    payloads.map((payload) => ({ kind, payload, runAt: now })),
    now,
  );
}

test('a job taken by a worker that died is run again once its lease has passed', async (t) => {
  const h = await buildHarness(t);
  await queued(h, 'note', [{ text: 'hello' }]);
  const now = h.clock.now();
  // A worker claims the job and dies before finishing it.
  const [claimed] = await claimDueJobs(
    h.ctx.db,
    h.ctx.dialect,
    now.toISOString(),
    new Date(now.getTime() + LEASE_MS).toISOString(),
    10,
  );
  assert.equal(claimed?.attempts, 1);

  const runs: Job[] = [];
  const worker = createWorker(h.ctx, {
    handlers: { note: async (job) => void runs.push(job) },
    leaseMs: LEASE_MS,
  });
  await worker.drain();
  assert.equal(runs.length, 0, 'not while the lease holds');
  h.clock.advance(LEASE_MS);
  await worker.drain();
  assert.deepEqual(runs, [
    {
      id: claimed?.id,
      kind: 'note',
      group: null,
      payload: { text: 'hello' },
      attempt: 2,
      leaseUntil: new Date(now.getTime() + 2 * LEASE_MS).toISOString(),
    },
  ]);
  assert.equal(await countJobs(h.ctx.db, 'note'), 0);
});

test('a handler asks to run again later; a failing handler is retried with growing waits, then dropped', async (t) => {
  const h = await buildHarness(t);
  await queued(h, 'later', [{}]);
  await queued(h, 'broken', [{}]);
  const attempts: Record<string, number[]> = { later: [], broken: [] };
  const errors: unknown[] = [];
  const worker = createWorker(h.ctx, {
    handlers: {
      later: async (job) => {
        attempts.later?.push(job.attempt);
        const { runs = 0 } = job.payload as { runs?: number };
        if (runs > 0) return undefined;
        return { runAgainAt: new Date(h.clock.now().getTime() + 60_000), payload: { runs: runs + 1 } };
      },
      broken: async (job) => {
        attempts.broken?.push(job.attempt);
        throw new Error('cannot');
      },
    },
    leaseMs: LEASE_MS,
    onError: (error) => errors.push(error),
  });
  for (let i = 0; i < 12; i += 1) {
    await worker.drain();
    h.clock.advance(3_600_000);
  }
  assert.deepEqual(attempts.later, [1, 1], 'a run that succeeds starts the count again');
  assert.deepEqual(attempts.broken, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.equal(errors.length, 10);
  assert.equal(await countJobs(h.ctx.db, 'broken'), 0);
});

test('workers claiming side by side take different jobs (SKIP LOCKED on PostgreSQL)', async (t) => {
  const h = await buildHarness(t);
  await queued(
    h,
    'share',
    Array.from({ length: 200 }, (_, i) => ({ i })),
  );
  const now = h.clock.now().toISOString();
  const lease = new Date(h.clock.now().getTime() + LEASE_MS).toISOString();
  const claims = await Promise.all(
    Array.from({ length: 4 }, () => claimDueJobs(h.ctx.db, h.ctx.dialect, now, lease, 80)),
  );
  const ids = claims.flat().map((row) => row.id);
  assert.equal(ids.length, 200);
  assert.equal(new Set(ids).size, 200, 'no job taken twice');
});

test('a started worker runs jobs as they are queued, and recurring jobs exist once however many start', async (t) => {
  const h = await buildHarness(t);
  let recurringRuns = 0;
  const seen: unknown[] = [];
  const options = {
    handlers: { note: async (job: Job) => void seen.push(job.payload) },
    recurring: [{ kind: 'tidy', everyMs: 3_600_000, run: async () => (recurringRuns += 1) }],
    leaseMs: LEASE_MS,
    idlePollMs: 5,
  };
  const first = createWorker(h.ctx, options);
  const second = createWorker(h.ctx, options);
  await first.start();
  await second.start();
  t.after(async () => {
    await first.stop();
    await second.stop();
  });
  await queued(h, 'note', [{ n: 1 }, { n: 2 }]);
  const deadline = Date.now() + 5_000;
  while (seen.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(
    seen.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    [{ n: 1 }, { n: 2 }],
  );
  assert.equal(recurringRuns, 1);
  assert.equal(await countJobs(h.ctx.db, 'tidy'), 1);
});

test("runs are settled together, and one run's failing write does not undo the others'", async (t) => {
  const h = await buildHarness(t);
  await queued(h, 'write', [{ name: 'good' }, { name: 'bad' }, { name: 'also good' }]);
  const errors: unknown[] = [];
  const calls: string[][] = [];
  const writer: RecordWriter<string> = {
    async write(trx, names) {
      calls.push([...names].sort());
      for (const name of names) {
        if (name === 'bad') throw new Error('this write fails');
        await trx.insertInto('service_marks').values({ name, at: h.clock.now().toISOString() }).execute();
      }
    },
  };
  const worker = createWorker(h.ctx, {
    handlers: {
      write: async (job) => ({ record: recordOf(writer, (job.payload as { name: string }).name) }),
    },
    leaseMs: LEASE_MS,
    onError: (error) => errors.push(error),
  });
  await worker.drain();
  assert.deepEqual(
    calls[0],
    ['also good', 'bad', 'good'],
    "the runs' entries went to their writer in one call",
  );
  const marks = await h.ctx.db
    .selectFrom('service_marks')
    .select('name')
    .where('name', 'like', '%good')
    .execute();
  assert.deepEqual(marks.map((mark) => mark.name).sort(), ['also good', 'good']);
  assert.equal(errors.length, 1);
  const left = await h.ctx.db
    .selectFrom('jobs')
    .select(['payload', 'attempts'])
    .where('kind', '=', 'write')
    .execute();
  assert.deepEqual(left, [{ payload: '{"name":"bad"}', attempts: 1 }]);
});

test('a recurring job is never dropped however often it fails', async (t) => {
  const h = await buildHarness(t);
  let runs = 0;
  const worker = createWorker(h.ctx, {
    handlers: {},
    recurring: [
      {
        kind: 'flaky',
        everyMs: 3_600_000,
        run: async () => {
          runs += 1;
          throw new Error('not today');
        },
      },
    ],
    leaseMs: LEASE_MS,
    onError: () => undefined,
  });
  for (let i = 0; i < 15; i += 1) {
    await worker.drain();
    h.clock.advance(3_600_000);
  }
  assert.equal(runs, 15);
  assert.equal(await countJobs(h.ctx.db, 'flaky'), 1);
});

test('a worker whose lease ran out and whose job was taken over changes nothing when it finishes', async (t) => {
  const h = await buildHarness(t);
  await queued(h, 'slow', [{}]);
  let release = () => {};
  const finished = new Promise<void>((resolve) => {
    release = resolve;
  });
  const runs: number[] = [];
  const stale = createWorker(h.ctx, {
    handlers: {
      slow: async (job) => {
        runs.push(job.attempt);
        await finished;
        return undefined;
      },
    },
    leaseMs: LEASE_MS,
  });
  const staleRun = stale.drain();
  while (runs.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  h.clock.advance(LEASE_MS);
  const now = h.clock.now();
  const [takenOver] = await claimDueJobs(
    h.ctx.db,
    h.ctx.dialect,
    now.toISOString(),
    new Date(now.getTime() + LEASE_MS).toISOString(),
    10,
  );
  assert.equal(takenOver?.attempts, 2);
  release();
  await staleRun;
  const left = await h.ctx.db
    .selectFrom('jobs')
    .select(['id', 'run_at'])
    .where('kind', '=', 'slow')
    .execute();
  assert.deepEqual(left, [{ id: takenOver?.id, run_at: takenOver?.run_at }], 'the new holder keeps the job');
});

test('each kind runs in slots of its own, and a group of a kind holds at most its share of them', async (t) => {
  const h = await buildHarness(t);
  const now = h.clock.now();
  await enqueue(
    h.ctx.db,
    [
      ...Array.from({ length: 6 }, (_, n) => ({ kind: 'stuck', payload: { n }, runAt: now, group: 'a' })),
      { kind: 'stuck', payload: { n: 'b' }, runAt: now, group: 'b' },
      { kind: 'quick', payload: {}, runAt: now },
      { kind: 'quick', payload: {}, runAt: now },
    ],
    now,
  );
  let unblock = () => {};
  const blocked = new Promise<void>((resolve) => {
    unblock = resolve;
  });
  const started: string[] = [];
  const worker = createWorker(h.ctx, {
    handlers: {
      stuck: async (job) => {
        started.push(`${job.group}`);
        await blocked;
        return undefined;
      },
      quick: async () => void started.push('quick'),
    },
    limits: { stuck: { concurrency: 3, perGroup: 2 }, quick: { concurrency: 1 } },
    leaseMs: LEASE_MS,
    idlePollMs: 5,
  });
  await worker.start();
  // Group b's job is claimed by a poll that passes over group a, once a holds its share.
  while (started.filter((name) => name === 'quick').length < 2 || !started.includes('b')) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.deepEqual(
    started.filter((name) => name !== 'quick').sort(),
    ['a', 'a', 'b'],
    "the stuck kind's three slots, two for group a: the quick kind ran meanwhile",
  );
  unblock();
  while (started.length < 9) await new Promise((resolve) => setTimeout(resolve, 5));
  await worker.stop();
  assert.equal(await countJobs(h.ctx.db, 'stuck'), 0, 'every job ran once its slot was free');
});
