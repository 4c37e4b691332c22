import { type Insertable, type Selectable, sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { type Dialect, forUpdateSkipLocked } from '../db/portable.ts';
import type { JobsTable } from '../db/schema.ts';

export type JobRow = Selectable<JobsTable>;

export async function insertJobs(db: Db, rows: Insertable<JobsTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('jobs').values(rows).execute();
}

/** Adds a recurring job unless one with its key already exists. */
export async function insertJobOnce(
  db: Db,
  row: Insertable<JobsTable> & { unique_key: string },
): Promise<void> {
  await db
    .insertInto('jobs')
    .values(row)
    .onConflict((conflict) => conflict.column('unique_key').doNothing())
    .execute();
}

/** What a claim may take of one kind. */
export interface KindClaim {
  kind: string;
  /** Its free slots: no more of its jobs are taken. */
  limit: number;
  /** Jobs of one group taken at most, where the kind shares its slots between groups. */
  perGroup?: number;
  /** The room left to groups that already hold slots of the kind; a group without room is passed over. */
  rooms: ReadonlyArray<{ group: string; room: number }>;
}

/** Which due jobs a claim may take: without one, any. */
export interface ClaimFilter {
  /** Only jobs of these kinds (those with free slots). */
  kinds: readonly KindClaim[];
}

/**
 * The due jobs, oldest first. PostgreSQL plans how to read them from the table's statistics, which
 * lag behind a queue that fills in bursts: planned on the statistics of a nearly empty table, the
 * read fetched every due job and sorted them (6 ms a claim at 15,000 queued) instead of walking the
 * index for the first few. Given a limit it cannot see (a subquery), the planner assumes a small part
 * of the rows is wanted, and walks the index, whatever the statistics say.
 */
function dueQuery(db: Db, now: string, limit: number) {
  return db
    .selectFrom('jobs')
    .where('run_at', '<=', now)
    .orderBy('run_at')
    .orderBy('id')
    .limit(sql<number>`(select cast(${limit} as integer))`);
}

/** A name for a kind's derived tables (kinds are words and dots). */
function aliasOf(prefix: string, kind: string): string {
  return `${prefix}_${kind.replace(/\W/g, '_')}`;
}

/**
 * The ids of one kind's due jobs a claim takes: the oldest, up to the kind's limit, passing over
 * groups without room, and of each group no more than its room. The read walks the (kind, run_at)
 * index from its start, where one read across kinds in run_at order sorted every due job of the
 * queue (90 ms at 50,000 queued deliveries on PostgreSQL). The candidates are locked, skipping
 * those another claim holds (PostgreSQL), so that claims side by side take different jobs.
 */
function claimableOf(db: Db, dialect: Dialect, now: string, claim: KindClaim) {
  const { kind, perGroup, rooms } = claim;
  const full = rooms.filter((group) => group.room <= 0).map((group) => group.group);
  const due = forUpdateSkipLocked(
    dueQuery(db, now, claim.limit)
      .select(['id', 'group_key', 'run_at'])
      .where('kind', '=', kind)
      .$if(full.length > 0, (query) =>
        query.where((eb) => eb.or([eb('group_key', 'is', null), eb('group_key', 'not in', full)])),
      ),
    dialect,
  ).as(aliasOf('due', kind));
  if (perGroup === undefined) return db.selectFrom(due).select('id');
  const ranked = db
    .selectFrom(due)
    .select((eb) => [
      'id',
      'group_key',
      eb.fn
        .agg<number>('row_number')
        .over((over) => over.partitionBy('group_key').orderBy('run_at').orderBy('id'))
        .as('place'),
    ])
    .as(aliasOf('ranked', kind));
  const partial = rooms.filter((group) => group.room > 0);
  return db
    .selectFrom(ranked)
    .select('id')
    .where((eb) => {
      // Rooms are the worker's own counts, written into the text; group names are parameters.
      const room =
        partial.length === 0
          ? sql<number>`${sql.lit(perGroup)}`
          : sql<number>`case ${sql.join(
              partial.map(({ group, room: left }) => sql`when group_key = ${group} then ${sql.lit(left)}`),
              sql` `,
            )} else ${sql.lit(perGroup)} end`;
      return eb.or([eb('group_key', 'is', null), eb('place', '<=', room)]);
    });
}

/**
 * Takes due jobs, oldest first: up to `limit` of any kind, or what the filter allows of each kind.
 * Each one's `run_at` moves to `leaseUntil` (when it becomes due again should its worker die) and
 * its attempt count goes up. One statement: a claim is one round trip.
 */
export async function claimDueJobs(
  db: Db,
  dialect: Dialect,
  now: string,
  leaseUntil: string,
  limit: number,
  filter?: ClaimFilter,
): Promise<JobRow[]> {
  const parts = filter
    ? filter.kinds.filter((claim) => claim.limit > 0).map((claim) => claimableOf(db, dialect, now, claim))
    : [
        db
          .selectFrom(forUpdateSkipLocked(dueQuery(db, now, limit).select('id'), dialect).as('due'))
          .select('id'),
      ];
  const [first, ...rest] = parts;
  if (!first) return [];
  const claimable = rest.reduce((union, next) => union.unionAll(next), first);
  return db
    .updateTable('jobs')
    .set((eb) => ({ run_at: leaseUntil, attempts: eb('attempts', '+', 1) }))
    .where('id', 'in', claimable)
    .returningAll()
    .execute();
}

/** A claimed job, named with the lease it was claimed under: a worker whose lease ran out and whose
 * job another worker took in the meantime changes nothing. */
export interface HeldJob {
  id: number;
  leaseUntil: string;
}

export async function deleteJobs(db: Db, jobs: readonly HeldJob[]): Promise<void> {
  if (jobs.length === 0) return;
  await db
    .deleteFrom('jobs')
    .where((eb) =>
      eb.or(jobs.map((job) => eb.and([eb('id', '=', job.id), eb('run_at', '=', job.leaseUntil)]))),
    )
    .execute();
}

/**
 * Gives jobs back unfinished: due at once, so another worker takes them without waiting for their
 * lease to run out, and the claim not counted as a run.
 */
export async function releaseJobs(db: Db, jobs: readonly HeldJob[], now: string): Promise<void> {
  if (jobs.length === 0) return;
  await db
    .updateTable('jobs')
    .set((eb) => ({ run_at: now, attempts: eb('attempts', '-', 1) }))
    .where((eb) =>
      eb.or(jobs.map((job) => eb.and([eb('id', '=', job.id), eb('run_at', '=', job.leaseUntil)]))),
    )
    .execute();
}

export async function rescheduleJob(
  db: Db,
  job: HeldJob,
  change: { runAt: string; payload?: string; resetAttempts?: boolean },
): Promise<void> {
  await db
    .updateTable('jobs')
    .set({
      run_at: change.runAt,
      ...(change.payload !== undefined && { payload: change.payload }),
      ...(change.resetAttempts && { attempts: 0 }),
    })
    .where('id', '=', job.id)
    .where('run_at', '=', job.leaseUntil)
    .execute();
}

export async function countJobs(db: Db, kind: string): Promise<number> {
  const row = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('kind', '=', kind)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
