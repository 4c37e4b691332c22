// Several `labeldesk serve` processes on one PostgreSQL database and one Redis, the way an operator
// runs them on several machines: each process has a data dir of its own (nothing a request needs may
// live only there), they share LABELDESK_SECRET, DATABASE_URL, REDIS_URL and the media store, and the
// API processes listen in plain HTTP behind a TLS-terminating proxy (TRUST_PROXY). A client spreads
// requests over the API processes in turn, as a round-robin load balancer does.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Installation,
  newInstallation,
  runLabeldesk,
  type Server,
  startServer,
  withClient,
} from './installation.ts';
import type { ApiRequest } from './pipeline.ts';

export interface ClusterProcess {
  readonly role: 'api' | 'worker';
  readonly port: number;
  readonly server: Server;
}

export interface Cluster {
  install: Installation;
  /** What every process shares (the database, Redis, the secret, the proxy setting and `env` given). */
  env: Record<string, string>;
  apis: ClusterProcess[];
  workers: ClusterProcess[];
  /** Starts a process of the role on a data dir of its own (on `port`, when given: a restart). */
  start(role: 'api' | 'worker', port?: number): Promise<ClusterProcess>;
  dispose(): Promise<void>;
}

/**
 * Ids of labels and keys start at a random point: rate budgets in Redis are named by them, and a
 * fresh database would otherwise reuse the budgets another run (or another suite) spent a moment ago.
 */
async function offsetIds(databaseUrl: string): Promise<void> {
  const start = 1_000_000 + randomBytes(3).readUIntBE(0, 3) * 100;
  await withClient(databaseUrl, async (client) => {
    for (const table of ['labels', 'api_keys', 'webhooks']) {
      await client.query(`select setval(pg_get_serial_sequence('${table}', 'id'), ${start})`);
    }
  });
}

export async function startCluster(
  purpose: string,
  shared: { redisUrl: string; env?: Record<string, string> },
): Promise<Cluster> {
  const install = await newInstallation(purpose);
  const databaseUrl = install.databaseUrl;
  if (databaseUrl === null) throw new Error('a cluster needs PostgreSQL');
  const dataDirs: string[] = [];
  const processes: ClusterProcess[] = [];
  const env = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: shared.redisUrl,
    LABELDESK_SECRET: randomBytes(32).toString('hex'),
    TRUST_PROXY: '127.0.0.1',
    ...shared.env,
  };
  const cluster: Cluster = {
    install,
    env,
    apis: [],
    workers: [],
    async start(role, port) {
      const dataDir = mkdtempSync(join(tmpdir(), `labeldesk-${purpose}-${role}-`));
      dataDirs.push(dataDir);
      const server = await startServer(install, {
        ...env,
        LABELDESK_DATA_DIR: dataDir,
        LABELDESK_ROLE: role,
        ...(port !== undefined && { PORT: String(port) }),
      });
      const started: ClusterProcess = { role, port: server.port, server };
      processes.push(started);
      return started;
    },
    async dispose() {
      await Promise.all(processes.map((process) => process.server.kill()));
      await install.dispose();
      for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
    },
  };
  // The operator's commands run against the shared database before any server: the schema first.
  const migrated = await runLabeldesk(install, ['migrate'], env);
  if (migrated.code !== 0) throw new Error(`migrate: ${migrated.stderr}`);
  await offsetIds(databaseUrl);
  return cluster;
}

export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
  /** The API process that answered. */
  port: number;
}

/**
 * The client of the test: each call goes to the next API process in turn (or the one named), through
 * the proxy's headers a TLS-terminating proxy adds, over kept-alive connections as a real client's.
 */
export class RoundRobinClient {
  private turn = 0;

  constructor(
    private readonly ports: () => readonly number[],
    /** Stands for the client's own address as the proxy would forward it. */
    private readonly clientAddress: string,
  ) {}

  nextPort(): number {
    const ports = this.ports();
    const port = ports[this.turn % ports.length];
    this.turn += 1;
    if (port === undefined) throw new Error('no API process');
    return port;
  }

  /** Any path of an API process (the next one, or `port`), with what the proxy would add. */
  fetch(path: string, init: RequestInit & { headers?: Record<string, string> } = {}, port = this.nextPort()) {
    return fetch(`http://127.0.0.1:${port}${path}`, {
      ...init,
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': this.clientAddress, ...init.headers },
    });
  }

  async request(
    method: string,
    path: string,
    options: { key?: string; json?: unknown; headers?: Record<string, string>; port?: number } = {},
  ): Promise<Answer> {
    const port = options.port ?? this.nextPort();
    const response = await this.fetch(
      `/api/v1${path}`,
      {
        method,
        headers: {
          ...(options.key && { authorization: `Bearer ${options.key}` }),
          ...(options.json !== undefined && { 'content-type': 'application/json' }),
          ...options.headers,
        },
        body: options.json === undefined ? undefined : JSON.stringify(options.json),
      },
      port,
    );
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null, port };
  }

  /** Requests as `givenDraft` makes them, all to the API process on `port`. */
  apiRequest(port: number): ApiRequest {
    return async (method, url, options) => {
      const { payload } = options;
      const json = payload !== undefined && typeof payload !== 'string' && !Buffer.isBuffer(payload);
      const body =
        payload === undefined
          ? undefined
          : Buffer.isBuffer(payload)
            ? new Uint8Array(payload)
            : typeof payload === 'string'
              ? payload
              : JSON.stringify(payload);
      const response = await this.fetch(
        url,
        {
          method,
          headers: {
            authorization: `Bearer ${options.key}`,
            ...(json && { 'content-type': 'application/json' }),
            ...options.headers,
          },
          body,
        },
        port,
      );
      return { statusCode: response.status, body: await response.text() };
    };
  }
}

/** A client address of its own for one run: the failed-authentication budget in Redis is per address. */
export function testClientAddress(): string {
  const [a = 0, b = 0] = randomBytes(2);
  return `2001:db8:${a.toString(16)}${b.toString(16)}:${randomBytes(2).toString('hex')}::1`;
}
