// Helpers for tests that run `labeldesk` as a separate process, the way an operator does: the in-process
// harness cannot show what the command line prints, how serve starts up, or what reaches the socket.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { TEST_DATABASE, TEST_POSTGRES_URL } from './harness.ts';
import type { ApiRequest } from './pipeline.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The `labeldesk` a child process runs: its bin/labeldesk.js and the environment that picks its code. */
export interface Program {
  bin: string;
  env: Record<string, string>;
}

/**
 * The checkout's sources, which tests run: bin/labeldesk.js would otherwise prefer a dist/ that may
 * predate the last edit. test/build.test.ts runs a fresh build instead.
 */
export const SOURCES: Program = {
  bin: join(ROOT, 'bin/labeldesk.js'),
  env: { LABELDESK_FROM_SOURCES: '1' },
};

// ---------------------------------------------------------------------------------------------
// A private installation: a fresh data dir and, on PostgreSQL, a database of its own.

export interface Installation {
  dataDir: string;
  /** The installation's own PostgreSQL database; null on SQLite, where the data dir holds the file. */
  databaseUrl: string | null;
  /** What points a child process at this installation (and at the program's code). */
  env: Record<string, string>;
  /** The bin/labeldesk.js a child process runs. */
  bin: string;
  dispose(): Promise<void>;
}

/** Opened for one piece of work and always closed: no test leaves a connection on a database it drops. */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * The rows `query` finds in the installation's database, read from outside the server: the SQLite file
 * opened read-only, or the installation's PostgreSQL database. For state a running or killed server left.
 */
export async function selectRows<T extends Record<string, unknown>>(
  install: Installation,
  query: string,
): Promise<T[]> {
  if (install.databaseUrl) {
    return withClient(install.databaseUrl, async (client) => (await client.query<T>(query)).rows);
  }
  const db = new SqliteDatabase(join(install.dataDir, 'labeldesk.sqlite'), {
    readonly: true,
    fileMustExist: true,
  });
  try {
    return db.prepare<[], T>(query).all();
  } finally {
    db.close();
  }
}

/**
 * A database rather than the harness's schema: the child runs its own migrations and connects with a
 * plain URL, just as an operator's installation does. `purpose` names the temp dir and the database
 * (so a leftover shows which test left it) and must be a plain SQL identifier.
 */
export async function newInstallation(purpose: string, program: Program = SOURCES): Promise<Installation> {
  const dataDir = mkdtempSync(join(tmpdir(), `labeldesk-${purpose}-`));
  const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
  if (TEST_DATABASE === 'sqlite') {
    return {
      dataDir,
      databaseUrl: null,
      env: { ...program.env, LABELDESK_DATA_DIR: dataDir },
      bin: program.bin,
      dispose: async () => removeDataDir(),
    };
  }
  const name = `${purpose}_${randomBytes(6).toString('hex')}`;
  await withClient(TEST_POSTGRES_URL, (client) => client.query(`create database ${name}`));
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    dataDir,
    databaseUrl: url.toString(),
    env: { ...program.env, LABELDESK_DATA_DIR: dataDir, DATABASE_URL: url.toString() },
    bin: program.bin,
    dispose: async () => {
      // `with (force)`: a server that failed to stop cleanly must not keep the database alive.
      await withClient(TEST_POSTGRES_URL, (client) =>
        client.query(`drop database if exists ${name} with (force)`),
      );
      removeDataDir();
    },
  };
}

/** The child sees only what it needs: none of this process's PORT, DATABASE_URL or test-runner variables. */
function childEnv(install: Installation, extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...install.env, ...extra };
}

// ---------------------------------------------------------------------------------------------
// Running labeldesk to completion.

export interface Exit {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `labeldesk ...args` and resolves however it ends, so tests can assert on failures too. */
export function runLabeldesk(
  install: Installation,
  args: readonly string[],
  extraEnv: Record<string, string> = {},
): Promise<Exit> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [install.bin, ...args],
      { cwd: ROOT, env: childEnv(install, extraEnv), timeout: 30_000 },
      (error, stdout, stderr) => {
        // A child killed by the timeout or a signal has no numeric code: -1 keeps it apart from exit 1.
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

/** `label create --name "My Label" --plan label` as argv: words, or double-quoted text. */
export function argv(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2] ?? '');
}

/** Runs a command line as an operator types it. */
export function cli(install: Installation, line: string): Promise<Exit> {
  return runLabeldesk(install, argv(line));
}

/**
 * Runs `labeldesk ...args --json` (args as argv, or as the line an operator types), which must succeed
 * in silence on stderr, and parses what it printed.
 */
export async function cliJson<T>(install: Installation, args: string | readonly string[]): Promise<T> {
  const exit = await runLabeldesk(install, [...(typeof args === 'string' ? argv(args) : args), '--json']);
  assert.deepEqual({ code: exit.code, stderr: exit.stderr }, { code: 0, stderr: '' }, exit.stdout);
  return JSON.parse(exit.stdout) as T;
}

// ---------------------------------------------------------------------------------------------
// `labeldesk serve`, started as an operator starts it.

export interface Server {
  port: number;
  stdout(): string;
  stderr(): string;
  stop(): Promise<void>;
  /** Sends SIGTERM and resolves with how the process ended: its exit code, or the signal that ended it. */
  terminate(): Promise<number | NodeJS.Signals | null>;
  /**
   * Ends the process with SIGKILL, as a crash or the OOM killer would: no shutdown code runs. Resolves
   * with the signal that ended it (null if it had already exited by itself).
   */
  kill(): Promise<NodeJS.Signals | null>;
}

const LISTENING = /^Labeldesk listening on .* [\d.]+:(\d+);/m;

/**
 * On an empty database the first steps follow the listening line; the `curl --cacert` line is their last,
 * so a test that compares all start-up lines waits for the end of it.
 */
export function firstStepsPrinted(stderr: string): boolean {
  return /curl --cacert .*\n/.test(stderr);
}

function waitUntil(what: string, ready: () => boolean, child: ChildProcess, ms = 30_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      if (ready()) {
        clearInterval(poll);
        resolve();
      } else if (child.exitCode !== null || Date.now() - started > ms) {
        clearInterval(poll);
        reject(new Error(`serve: no ${what} (exit code ${child.exitCode})`));
      }
    }, 25);
  });
}

/**
 * `labeldesk serve` on a free port (PORT=0), so suites can run side by side; resolves once stderr has
 * the listening line and satisfies `ready`. The port is read back from the listening line.
 */
export async function startServer(
  install: Installation,
  extraEnv: Record<string, string> = {},
  ready: (stderr: string) => boolean = () => true,
  args: readonly string[] = [],
): Promise<Server> {
  const child = spawn(process.execPath, [install.bin, 'serve', ...args], {
    cwd: ROOT,
    env: childEnv(install, { PORT: '0', ...extraEnv }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  };
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    return child.signalCode;
  };
  try {
    await waitUntil('start-up lines', () => LISTENING.test(err) && ready(err), child);
  } catch (error) {
    await stop();
    // What serve printed is usually the reason it did not start.
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${err}`);
  }
  const terminate = async () => {
    await stop();
    return child.exitCode ?? child.signalCode;
  };
  return {
    port: Number(LISTENING.exec(err)?.[1]),
    stdout: () => out,
    stderr: () => err,
    stop,
    terminate,
    kill,
  };
}

// ---------------------------------------------------------------------------------------------
// Requests to a running server.

export interface Reply {
  status: number;
  headers: Record<string, string | undefined>;
  body: unknown;
}

/** Only the headers the API conventions fix are kept: the rest (date, length, ...) differ each time. */
const SHOWN_HEADERS = ['x-api-version', 'cache-control', 'content-type'] as const;

/**
 * A request on a fresh connection (no agent: one request cannot ride on another's socket); `json`,
 * when given, is sent as the JSON body. HTTPS goes to `localhost`, the name the certificate is
 * for, and trusts only `ca`.
 */
export function send(
  method: string,
  url: { protocol: 'http' | 'https'; port: number; path: string },
  options: { headers?: Record<string, string>; ca?: string; json?: unknown } = {},
): Promise<Reply> {
  const request = url.protocol === 'https' ? httpsRequest : httpRequest;
  const body = options.json === undefined ? null : JSON.stringify(options.json);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        method,
        hostname: url.protocol === 'https' ? 'localhost' : '127.0.0.1',
        family: 4,
        port: url.port,
        path: url.path,
        agent: false,
        headers: {
          ...(body !== null && {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
          }),
          ...options.headers,
        },
        ...(options.ca && { ca: options.ca }),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => {
          const headers = Object.fromEntries(
            SHOWN_HEADERS.map((name) => [name, res.headers[name]?.toString()]),
          );
          resolve({ status: res.statusCode ?? 0, headers, body: JSON.parse(text) });
        });
      },
    );
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

export function get(
  url: { protocol: 'http' | 'https'; port: number; path: string },
  options: { headers?: Record<string, string>; ca?: string } = {},
): Promise<Reply> {
  return send('GET', url, options);
}

/**
 * The API of a running server as `givenDraft` and its kind take it: each request on a fresh HTTPS
 * connection to `localhost:port`, trusting only `ca`. An object payload is sent as JSON, a buffer
 * or text as it is (with the caller's content type).
 */
export function httpsApi(port: number, ca: string): ApiRequest {
  return (method, url, options) => {
    const { payload } = options;
    const body =
      payload === undefined
        ? null
        : typeof payload === 'string' || Buffer.isBuffer(payload)
          ? payload
          : JSON.stringify(payload);
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        {
          method,
          hostname: 'localhost',
          port,
          path: url,
          agent: false,
          ca,
          headers: {
            authorization: `Bearer ${options.key}`,
            ...(body !== null && {
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(body)),
            }),
            ...options.headers,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.end(body ?? undefined);
    });
  };
}
