import { buildApp } from '../app.ts';
import { createBackground } from '../background.ts';
import type { Config } from '../config.ts';
import { createRateLimiter } from '../http/rate-limiter.ts';
import { createServerLog } from '../log.ts';
import { masterSecret } from '../master-secret.ts';
import { countLabels } from '../modules/labels/index.ts';
import { mediaObjects, sweepTempFolder } from '../modules/media/index.ts';
import { openContext } from '../runtime.ts';
import { loadTlsMaterial } from '../tls.ts';

function firstStepsMessage(config: Config): string {
  return [
    'This database has no label yet. Create one and a key, then call the API:',
    '  npx labeldesk label create --name "My Label" --plan label --contract-signed',
    '  npx labeldesk key create --label 1 --scopes all',
    `  curl --cacert ${config.trustProxy ? '<your proxy CA>' : `${config.dataDir}/tls/localhost-cert.pem`} -H "Authorization: Bearer <KEY>" ${config.baseUrl}/api/v1/me`,
  ].join('\n');
}

export async function serve(): Promise<void> {
  const { ctx, close } = await openContext();
  const { config } = ctx;
  // Before anything listens: a master key others can read stops the start with one line.
  masterSecret(config);
  await sweepTempFolder(mediaObjects(config).tempDir, ctx.clock.now());
  const tls = config.trustProxy ? null : await loadTlsMaterial(config);
  const limiter = createRateLimiter(config.redisUrl);
  const { log, flush } = createServerLog();
  const app = await buildApp(ctx, {
    limiter,
    log,
    https: tls ? { key: tls.key, cert: tls.cert } : null,
  });
  const background = createBackground(ctx, {
    onError: (error, job) =>
      log.error({ err: error, job_id: job?.id, job_kind: job?.kind }, 'background job failed'),
  });

  const shutdown = async (signal: string) => {
    log.info({ signal }, 'shutting down');
    await app.close();
    await background.close();
    await limiter.close();
    await close();
    await flush();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ host: config.host, port: config.port });
  await background.worker.start();
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
