import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import type { Workspace } from '../../db/scope.ts';
import { enqueue } from '../../jobs/queue.ts';
import type { PlatformKey } from '../platforms/index.ts';
import { ddexDistributor } from './distributor.ddex.ts';
import {
  SANDBOX_LIVE_JOB,
  SIMULATED_STEP_JOB,
  SIMULATED_TAKEDOWN_JOB,
  type SimulatedTakedown,
} from './distributor.jobs.ts';

/** What the distributor is given: the release as approved, with the identifiers it goes out with. */
export interface OutgoingRelease {
  id: number;
  upc: string;
  isrcs: readonly string[];
}

/**
 * A distributor: it receives approved releases and takedown orders, and later reports each
 * platform's stage through `applyPlatformReports`. Both calls run inside the transaction of the
 * change that asks for them, so a distributor only ever hears of committed changes; an adapter
 * for a real distributor queues a job that makes the call.
 */
export interface DistributorAdapter {
  deliver(trx: Db, release: OutgoingRelease, at: Date): Promise<void>;
  /** Takes the release down from `dsps` (platform keys), the others keep it. */
  takeDown(trx: Db, release: OutgoingRelease, at: Date, dsps: readonly PlatformKey[]): Promise<void>;
}

function afterDelay(kind: string, payload: { release_id: number }, at: Date, delayMs: number) {
  return { kind, payload, runAt: new Date(at.getTime() + delayMs) };
}

/** The built-in distributor: it walks every platform through its stages, one every DISTRIBUTOR_STEP. */
function simulatedDistributor(config: Config): DistributorAdapter {
  return {
    async deliver(trx, release, at) {
      const payload = { release_id: release.id };
      await enqueue(trx, [afterDelay(SIMULATED_STEP_JOB, payload, at, config.distributorStepMs)], at);
    },
    async takeDown(trx, release, at, dsps) {
      const payload: SimulatedTakedown = { release_id: release.id, dsps };
      await enqueue(trx, [afterDelay(SIMULATED_TAKEDOWN_JOB, payload, at, config.distributorStepMs)], at);
    },
  };
}

/** A sandbox sends nothing anywhere: its release is live on every platform after SANDBOX_LIVE_AFTER. */
function sandboxDistributor(config: Config): DistributorAdapter {
  return {
    async deliver(trx, release, at) {
      const payload = { release_id: release.id };
      await enqueue(trx, [afterDelay(SANDBOX_LIVE_JOB, payload, at, config.sandboxLiveAfterMs)], at);
    },
    async takeDown() {
      // Sandbox takedown requests create no ticket, so none is ever approved.
    },
  };
}

export function distributorFor(config: Config, workspace: Workspace): DistributorAdapter {
  if (workspace.sandbox) return sandboxDistributor(config);
  switch (config.distributor) {
    case 'simulated':
      return simulatedDistributor(config);
    case 'ddex':
      return ddexDistributor(config);
  }
}
