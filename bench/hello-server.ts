// The baseline: the smallest Fastify app, without a logger, so the ratio shows what Labeldesk adds.
import Fastify from 'fastify';

const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write('hello-server: PORT must be a port number\n');
  process.exit(1);
}

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));

process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});

await app.listen({ host: '127.0.0.1', port });
