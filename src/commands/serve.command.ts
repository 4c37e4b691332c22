import { buildApp } from '../app.ts';
import { createBackground } from '../background.ts';
import { type Config, loadConfig, type ProcessRole } from '../config.ts';
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

/**
 * How long SIGTERM gives in-flight requests and running jobs: a process manager's usual wait before
 * SIGKILL is 10 s (Kubernetes, systemd's default is longer), and the process is gone by then.
 */
const DRAIN_MS = 10_000;
/** Taken from the drain for what comes after it: giving back unfinished jobs, closing connections. */
const DRAIN_MARGIN_MS = 1_000;

/** What the listening line adds for a process with a role other than `all`. */
const ROLE_NOTES: Record<ProcessRole, string> = {
  all: '',
  api: '; role api: no jobs',
  worker: '; role worker: jobs, and only /api/v1/status over HTTP',
};

/** `--role` on the command line wins over LABELDESK_ROLE. */
export async function serve(options: { role?: string } = {}): Promise<void> {
  const env = options.role === undefined ? process.env : { ...process.env, LABELDESK_ROLE: options.role };
  const { ctx, close } = await openContext(loadConfig(env));
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
    routes: config.role === 'worker' ? 'status' : 'all',
  });
  const background =
    config.role === 'api'
      ? null
      : createBackground(ctx, {
          onError: (error, job) =>
            log.error({ err: error, job_id: job?.id, job_kind: job?.kind }, 'background job failed'),
        });

  // Drains: no new connection is accepted, requests in flight are answered and running jobs finish;
  // what is still running when the drain ends is cut off (its jobs given back to the queue).
  const shutdown = async (signal: string) => {
    log.info({ signal }, 'shutting down');
    const graceMs = DRAIN_MS - DRAIN_MARGIN_MS;
    const cutOff = setTimeout(() => app.server.closeAllConnections(), graceMs);
    await Promise.all([app.close(), background?.close({ graceMs })]);
    clearTimeout(cutOff);
    await limiter.close();
    await close();
    await flush();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ host: config.host, port: config.port });
  await background?.worker.start();
  const scheme = tls ? 'https' : 'http (behind a TLS proxy)';
  // PORT=0 asks the system for a free port: show the one actually bound.
  const address = app.server.address();
  const port = address !== null && typeof address === 'object' ? address.port : config.port;
  process.stderr.write(
    `Labeldesk listening on ${scheme} ${config.host}:${port}; API at ${config.baseUrl}/api/v1 (${ctx.dialect}${ROLE_NOTES[config.role]})\n`,
  );
  if (tls) process.stderr.write(`TLS certificate: ${tls.certFile}\n`);
  if ((await countLabels(ctx.db)) === 0) process.stderr.write(`${firstStepsMessage(config)}\n`);
}
