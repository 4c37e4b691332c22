// A real `labeldesk serve` for the client's tests: a fresh installation (SQLite or PostgreSQL, as
// TEST_DATABASE says) with a label on the Label plan, keys, and a receiver its deliveries may reach; and
// the fetch the client is given to trust the server's self-signed certificate (Node's global fetch takes
// no CA per request, so undici's own fetch with an Agent that trusts it).
import { readFileSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import {
  cliJson,
  type Installation,
  newInstallation,
  type Server,
  startServer,
} from '../../../test/helpers/installation.ts';
import { type Receiver, startReceiver } from '../../../test/helpers/receiver.ts';

export interface Served {
  install: Installation;
  server: Server;
  /** `https://localhost:<port>`: the server's BASE_URL, so its Link headers name this very server. */
  origin: string;
  /** The server's certificate. */
  ca: string;
  /** A fetch that trusts the server's certificate, for `createLabeldeskClient({fetch})`. */
  fetch: (request: Request) => Promise<Response>;
  receiver: Receiver;
  /** The id of the label on the Label plan (with a signed contract) that `key` belongs to. */
  labelId: number;
  /** A key with every scope for the Label-plan label. */
  key: string;
  dispose(): Promise<void>;
}

/** A label on the Label plan; returns its id. */
export async function newLabel(install: Installation, name: string, flags: string[] = []): Promise<number> {
  const created = await cliJson<{ label: { id: number } }>(install, [
    'label',
    'create',
    '--name',
    name,
    '--plan',
    'label',
    ...flags,
  ]);
  return created.label.id;
}

/** A key of the label with `scopes` (comma-separated, or `all`). */
export async function newKey(install: Installation, labelId: number, scopes: string): Promise<string> {
  const created = await cliJson<{ key: string }>(install, [
    'key',
    'create',
    '--label',
    String(labelId),
    '--scopes',
    scopes,
  ]);
  return created.key;
}

/** A port nobody listens on: the server's BASE_URL must name its port before it starts. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve, reject) => probe.close((error) => (error ? reject(error) : resolve())));
  return port;
}

/**
 * The server, started after `prepare` ran against its installation (labels, limits: what the command
 * line sets before the server reads it), with `env` added to its settings.
 */
export async function serve(
  purpose: string,
  prepare: (install: Installation) => Promise<void> = async () => {},
  env: Record<string, string> = {},
): Promise<Served> {
  const install = await newInstallation(purpose);
  const receiver = await startReceiver();
  try {
    const labelId = await newLabel(install, 'Client Records', ['--contract-signed']);
    const key = await newKey(install, labelId, 'all');
    await prepare(install);
    const caFile = join(install.dataDir, 'receiver-ca.pem');
    writeFileSync(caFile, receiver.ca);
    const port = await freePort();
    const origin = `https://localhost:${port}`;
    const server = await startServer(install, {
      PORT: String(port),
      BASE_URL: origin,
      NODE_EXTRA_CA_CERTS: caFile,
      WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32',
      ...env,
    });
    const ca = readFileSync(join(install.dataDir, 'tls', 'localhost-cert.pem'), 'utf8');
    return {
      install,
      server,
      origin,
      ca,
      fetch: trustingFetch(ca),
      receiver,
      labelId,
      key,
      dispose: async () => {
        await server.stop();
        await receiver.close();
        await install.dispose();
      },
    };
  } catch (error) {
    await receiver.close();
    await install.dispose();
    throw error;
  }
}

/** A fetch taking the client's Request and answering a standard Response, over an Agent that trusts `ca`. */
export function trustingFetch(ca: string): (request: Request) => Promise<Response> {
  const dispatcher = new Agent({ connect: { ca } });
  return async (request) => {
    const body = request.body === null ? undefined : await request.arrayBuffer();
    const answer = await undiciFetch(request.url, {
      method: request.method,
      headers: [...request.headers],
      body,
      signal: request.signal,
      redirect: 'manual',
      dispatcher,
    });
    const bytes = await answer.arrayBuffer();
    return new Response(answer.status === 204 || answer.status === 304 ? null : bytes, {
      status: answer.status,
      statusText: answer.statusText,
      headers: [...answer.headers],
    });
  };
}
