// `npm run bench:round-trips`: how many statements each hot request sends to PostgreSQL, each a round
// trip to the server, and how many of them are named (prepared once per connection). A diagnostic
// beside the load benches: it counts rather than times, so its numbers hold on a busy machine.
//
// The app answers in this process (app.inject) on a fresh database on BENCH_POSTGRES_URL's server
// (default the local one), seeded as `npm run bench:engines` seeds it; every query pg sends is counted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { MemoryRateLimiter } from '../src/http/rate-limiter.ts';
import { openFreshPostgres } from './catalog-database.ts';
import { type HotPaths, seedHotPaths } from './hot-paths.ts';
import { dataDirOf, openContext } from './in-process.ts';
import { formatGrid } from './report.ts';

const POSTGRES_URL = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
/** Requests of each kind before the counted one: the first loads what later ones find ready. */
const WARM_UPS = 2;

interface Sent {
  statements: number;
  named: number;
  texts: string[];
}

/** Every query any pg client of this process sends, counted as it is sent. */
function countStatements(): Sent {
  const sent: Sent = { statements: 0, named: 0, texts: [] };
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: Parameters<typeof query>) {
    const [statement] = args;
    const config = typeof statement === 'string' ? { text: statement } : (statement as pg.QueryConfig);
    sent.statements++;
    if (config.name) sent.named++;
    sent.texts.push(config.text);
    return query.apply(this, args);
  } as typeof query;
  return sent;
}

interface HotRequest {
  name: string;
  url: string;
  headers: Record<string, string>;
}

function hotRequests(paths: HotPaths): HotRequest[] {
  const api = { authorization: `Bearer ${paths.key}` };
  const page = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0', accept: 'text/html' };
  return [
    { name: 'GET /me', url: '/api/v1/me', headers: api },
    { name: 'GET /releases?per_page=20', url: '/api/v1/releases?per_page=20', headers: api },
    { name: 'GET /releases?status=live', url: '/api/v1/releases?per_page=20&status=live', headers: api },
    { name: 'GET /releases/{id}', url: `/api/v1/releases/${paths.releaseId}`, headers: api },
    { name: 'GET /artists?per_page=20', url: '/api/v1/artists?per_page=20', headers: api },
    { name: 'GET /artists/{id}/releases', url: `/api/v1/artists/${paths.artistId}/releases`, headers: api },
    { name: 'GET /smart-links', url: '/api/v1/smart-links', headers: api },
    { name: 'GET /smart-links/{id}', url: `/api/v1/smart-links/${paths.smartLinkId}`, headers: api },
    { name: 'smart-link page', url: paths.linkPath, headers: page },
  ];
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'labeldesk-bench-round-trips-'));
  const bench = await openFreshPostgres(POSTGRES_URL, dataDirOf(dir), 'labeldesk_bench_round_trips');
  try {
    const ctx = await openContext(dir, bench);
    const paths = await seedHotPaths(ctx);
    const app = await buildApp(ctx, { limiter: new MemoryRateLimiter() });
    await app.ready();
    const sent = countStatements();
    const rows: string[][] = [];
    for (const request of hotRequests(paths)) {
      for (let i = 0; i < WARM_UPS; i++)
        await app.inject({ method: 'GET', url: request.url, headers: request.headers });
      const before = { ...sent, texts: sent.texts.length };
      const answer = await app.inject({ method: 'GET', url: request.url, headers: request.headers });
      if (answer.statusCode !== 200)
        throw new Error(`${request.name} answered ${answer.statusCode}: ${answer.body}`);
      rows.push([
        request.name,
        String(sent.statements - before.statements),
        String(sent.named - before.named),
      ]);
      if (process.env.BENCH_SHOW_SQL)
        process.stderr.write(`${request.name}:\n  ${sent.texts.slice(before.texts).join('\n  ')}\n`);
    }
    await app.close();
    process.stdout.write(`\n${formatGrid(['request (PostgreSQL)', 'statements', 'named'], rows)}\n`);
  } finally {
    await bench.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
