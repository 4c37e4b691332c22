// nginx in front of API processes, configured by examples/nginx.conf (the file the operations guide
// shows) with its placeholders filled in, and run as a child process in a temporary prefix.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const EXAMPLE = fileURLToPath(new URL('../../examples/nginx.conf', import.meta.url));

/** The nginx binary of the Debian package, or null when it is not installed. */
export const NGINX_BIN: string | null =
  ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path)) ?? null;

export interface Nginx {
  port: number;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = address !== null && typeof address === 'object' ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The example with its placeholders filled; a placeholder left unfilled is an error. */
export function renderExample(values: Record<string, string>): string {
  const text = readFileSync(EXAMPLE, 'utf8').replace(/\{\{([A-Z0-9_]+)\}\}/g, (match, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`examples/nginx.conf: no value for ${match}`);
    return value;
  });
  return text;
}

export async function startNginx(options: {
  apis: readonly string[];
  certFile: string;
  keyFile: string;
}): Promise<Nginx> {
  if (!NGINX_BIN) throw new Error('nginx is not installed');
  const prefix = mkdtempSync(join(tmpdir(), 'labeldesk-nginx-'));
  // The worker processes run as an unprivileged user and write their temp files here.
  chmodSync(prefix, 0o777);
  const port = await freePort();
  const [api1 = '', api2 = ''] = options.apis;
  writeFileSync(
    join(prefix, 'labeldesk.conf'),
    renderExample({
      API_1: api1,
      API_2: api2,
      LISTEN_PORT: `127.0.0.1:${port}`,
      SERVER_NAME: 'localhost',
      TLS_CERT_FILE: options.certFile,
      TLS_KEY_FILE: options.keyFile,
    }),
  );
  // What a distribution's nginx.conf holds around the example's http-context file.
  writeFileSync(
    join(prefix, 'nginx.conf'),
    [
      'daemon off;',
      'worker_processes 1;',
      `pid ${prefix}/nginx.pid;`,
      `error_log ${prefix}/error.log warn;`,
      'events { worker_connections 512; }',
      'http {',
      '  access_log off;',
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
        (kind) => `  ${kind}_temp_path ${prefix}/${kind}_temp;`,
      ),
      `  include ${prefix}/labeldesk.conf;`,
      '}',
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(
    NGINX_BIN,
    ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', join(prefix, 'error.log')],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(prefix, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      const log = existsSync(join(prefix, 'error.log'))
        ? readFileSync(join(prefix, 'error.log'), 'utf8')
        : '';
      await close();
      throw new Error(`nginx did not start: ${stderr}${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { port, close };
}
