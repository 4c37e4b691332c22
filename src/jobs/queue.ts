import type { Db } from '../db/database.ts';
import { insertJobs } from './jobs.store.ts';

/** Work to do later, stored in the database so it survives a restart. */
export interface NewJob {
  kind: string;
  payload: unknown;
  runAt: Date;
  /** Jobs of a kind with the same group share a part of its slots (see `KindLimits.perGroup`). */
  group?: string;
}

/**
 * Stores jobs. Pass the transaction of the change that calls for them: the jobs then exist if and
 * only if the change committed.
 */
export async function enqueue(db: Db, jobs: readonly NewJob[], createdAt: Date): Promise<void> {
  await insertJobs(db, jobRows(jobs, createdAt));
}

/** The rows that store jobs: for `enqueue`, and for a statement that stores jobs as a part of its work. */
export function jobRows(jobs: readonly NewJob[], createdAt: Date) {
  return jobs.map((job) => ({
    kind: job.kind,
    payload: JSON.stringify(job.payload),
    run_at: job.runAt.toISOString(),
    created_at: createdAt.toISOString(),
    group_key: job.group ?? null,
  }));
}

/** The id a job's payload names under `field` (jobs about one release carry `release_id`). */
export function payloadId(payload: unknown, field: string): number {
  const value = (payload as Record<string, unknown> | null)?.[field];
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new Error(`job payload has no ${field}`);
  return value;
}
