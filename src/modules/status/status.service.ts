import type { AppContext } from '../../context.ts';
import { pingDatabase } from '../../db/database.ts';
import { API_VERSION } from '../../http/conventions.ts';
import { attemptCountsSince } from '../webhooks/index.ts';
import { readMark } from './status.store.ts';

export const DISTRIBUTOR_LAST_EVENT_MARK = 'distributor.last_event_at';

export interface StatusReport {
  status: 'ok' | 'unavailable';
  version: string;
  time: string;
  uptime_seconds: number;
  checks: {
    api: { ok: boolean };
    database: { ok: boolean; latency_ms: number | null };
    distributor: { ok: boolean; last_event_at: string | null };
    webhooks: { ok: boolean; deliveries_24h: number; failed_24h: number };
  };
}

async function databaseCheck(ctx: AppContext): Promise<{ ok: boolean; latency_ms: number | null }> {
  try {
    const latency = await pingDatabase(ctx.db);
    return { ok: true, latency_ms: Math.round(latency * 100) / 100 };
  } catch {
    return { ok: false, latency_ms: null };
  }
}

const DAY_MS = 24 * 3_600_000;

/** Delivery attempts of the last 24 hours across every label, and how many failed. */
async function webhooksCheck(ctx: AppContext, now: Date): Promise<StatusReport['checks']['webhooks']> {
  const counts = await attemptCountsSince(ctx.db, new Date(now.getTime() - DAY_MS).toISOString());
  return { ok: true, deliveries_24h: counts.total, failed_24h: counts.failed };
}

const UNKNOWN_WEBHOOKS: StatusReport['checks']['webhooks'] = { ok: false, deliveries_24h: 0, failed_24h: 0 };

export async function statusReport(ctx: AppContext, startedAt: Date): Promise<StatusReport> {
  const now = ctx.clock.now();
  const database = await databaseCheck(ctx);
  const lastEventAt = database.ok ? await readMark(ctx.db, DISTRIBUTOR_LAST_EVENT_MARK) : null;
  return {
    status: database.ok ? 'ok' : 'unavailable',
    version: API_VERSION,
    time: now.toISOString(),
    uptime_seconds: Math.max(0, Math.floor((now.getTime() - startedAt.getTime()) / 1000)),
    checks: {
      api: { ok: true },
      database,
      distributor: { ok: true, last_event_at: lastEventAt },
      webhooks: database.ok ? await webhooksCheck(ctx, now) : UNKNOWN_WEBHOOKS,
    },
  };
}
