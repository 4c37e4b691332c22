import { buildApp } from '../app.ts';
import type { Config } from '../config.ts';
import type { AppContext } from '../context.ts';
import { deleteIdempotencyRowsBefore } from '../http/idempotency.store.ts';
import { createRateLimiter } from '../http/rate-limiter.ts';
import { createServerLog } from '../log.ts';
import { pruneExpiredEvents } from '../modules/events/events.service.ts';
import { countLabels } from '../modules/labels/labels.store.ts';
import { openContext } from '../runtime.ts';
import { loadTlsMaterial } from '../tls.ts';

const HOUR_MS = 3_600_000;

function firstStepsMessage(config: Config): string {
  return [
    'This database has no label yet. Create one and a key, then call the API:',
    '  npx labeldesk label create --name "My Label" --plan label --contract-signed',
    '  npx labeldesk key create --label 1 --scopes all',
    `  curl --cacert ${config.trustProxy ? '<your proxy CA>' : `${config.dataDir}/tls/localhost-cert.pem`} -H "Authorization: Bearer <KEY>" ${config.baseUrl}/api/v1/me`,
  ].join('\n');
}

/** Idempotency records live 24 hours and events 90 days; this drops older ones once an hour. */
function pruneHourly(ctx: AppContext): NodeJS.Timeout {
  const prune = () =>
    Promise.all([
      deleteIdempotencyRowsBefore(ctx.db, new Date(ctx.clock.now().getTime() - 24 * HOUR_MS).toISOString()),
      pruneExpiredEvents(ctx.db, ctx.clock),
    ]).catch(() => undefined);
  void prune();
  return setInterval(prune, HOUR_MS).unref();
}

export async function serve(): Promise<void> {
  const { ctx, close } = await openContext();
  const { config } = ctx;
  const tls = config.trustProxy ? null : await loadTlsMaterial(config);
  const limiter = createRateLimiter(config.redisUrl);
  const { log, flush } = createServerLog();
  const app = await buildApp(ctx, {
    limiter,
    log,
    https: tls ? { key: tls.key, cert: tls.cert } : null,
  });
  const pruner = pruneHourly(ctx);

  const shutdown = async (signal: string) => {
    log.info({ signal }, 'shutting down');
    clearInterval(pruner);
    await app.close();
    await limiter.close();
    await close();
    await flush();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ host: config.host, port: config.port });
  const scheme = tls ? 'https' : 'http (behind a TLS proxy)';
  // PORT=0 asks the system for a free port: show the one actually bound.
  const address = app.server.address();
  const port = address !== null && typeof address === 'object' ? address.port : config.port;
  process.stderr.write(
    `Labeldesk listening on ${scheme} ${config.host}:${port}; API at ${config.baseUrl}/api/v1 (${ctx.dialect})\n`,
  );
  if (tls) process.stderr.write(`TLS certificate: ${tls.certFile}\n`);
  if ((await countLabels(ctx.db)) === 0) process.stderr.write(`${firstStepsMessage(config)}\n`);
}
