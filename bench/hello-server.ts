// The baseline: the smallest Fastify app, without a logger, so the ratio shows what Labeldesk adds.
// `/logged` is a reference point: the same answer plus one JSON log line per request written the way
// Labeldesk writes its own, which shows how much of the gap the request log alone accounts for.
// With TLS_CERT_FILE and TLS_KEY_FILE it answers over HTTPS, as Labeldesk does without a proxy.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { createServerLog } from '../src/log.ts';

const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write('hello-server: PORT must be a port number\n');
  process.exit(1);
}

const { TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile } = process.env;
const https = certFile && keyFile ? { cert: readFileSync(certFile), key: readFileSync(keyFile) } : null;
const app = Fastify({ logger: false, https });
app.get('/', async () => ({ hello: 'world' }));

const { log } = createServerLog();
app.get(
  '/logged',
  {
    onResponse: async (request, reply) => {
      log.info(
        { req_id: request.id, method: request.method, url: request.url, status: reply.statusCode },
        'request',
      );
    },
  },
  async () => ({ hello: 'world' }),
);

process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});

await app.listen({ host: '127.0.0.1', port });
