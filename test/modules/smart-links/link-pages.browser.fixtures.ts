// What the browser tests of the smart-link pages share: `labeldesk serve` as a child process over
// HTTPS with its self-signed certificate, an API client with a key, Debian's Chromium driven by
// playwright-core, a phone to browse with and a cover to upload.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { type Browser, type BrowserContextOptions, chromium } from 'playwright-core';
import sharp from 'sharp';
import {
  cliJson,
  type Installation,
  newInstallation,
  type Reply,
  type Server,
  send,
  startServer,
} from '../../helpers/installation.ts';

const CHROMIUM = '/usr/bin/chromium';

/** Why a browser test skips, or null when Chromium is there to run it. */
export function chromiumMissing(): string | null {
  return existsSync(CHROMIUM)
    ? null
    : `${CHROMIUM} is not installed (apt-get install chromium; .ci/run installs it)`;
}

const IPHONE_SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

/** A phone: its user agent, its screen, and German first in Accept-Language. */
export const PHONE: BrowserContextOptions = {
  ignoreHTTPSErrors: true,
  userAgent: IPHONE_SAFARI,
  locale: 'de-DE',
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
  colorScheme: 'light',
};

/** Things to undo when a test ends, last first: the browser before the server, the server before its database. */
export type Cleanups = Array<() => Promise<unknown>>;

export function launchChromium(cleanups: Cleanups): Promise<Browser> {
  const launched = chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return launched.then((browser) => {
    cleanups.push(() => browser.close());
    return browser;
  });
}

/**
 * A port nobody listens on. The pages link to themselves through BASE_URL, so the server needs a port
 * known before it starts (PORT=0 would leave BASE_URL at its default).
 */
async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve, reject) => probe.close((error) => (error ? reject(error) : resolve())));
  return port;
}

export interface Api {
  call(method: string, path: string, json?: unknown): Promise<Reply>;
  /** Like `call`, expecting `status`; returns the body. */
  expect<T>(status: number, method: string, path: string, json?: unknown): Promise<T>;
  putBytes(path: string, body: Buffer, contentType: string): Promise<Reply>;
}

function apiClient(port: number, key: string, ca: string): Api {
  const call = (method: string, path: string, json?: unknown) =>
    send(
      method,
      { protocol: 'https', port, path: `/api/v1${path}` },
      { headers: { authorization: `Bearer ${key}` }, ca, json },
    );
  return {
    call,
    async expect<T>(status: number, method: string, path: string, json?: unknown): Promise<T> {
      const reply = await call(method, path, json);
      assert.equal(reply.status, status, `${method} ${path}: ${JSON.stringify(reply.body)}`);
      return reply.body as T;
    },
    putBytes: (path, body, contentType) =>
      new Promise((resolve, reject) => {
        const req = httpsRequest(
          {
            method: 'PUT',
            hostname: 'localhost',
            family: 4,
            port,
            path: `/api/v1${path}`,
            agent: false,
            ca,
            headers: {
              authorization: `Bearer ${key}`,
              'content-type': contentType,
              'content-length': String(body.length),
            },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8').on('data', (chunk: string) => {
              text += chunk;
            });
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, headers: {}, body: JSON.parse(text) }),
            );
          },
        );
        req.on('error', reject);
        req.end(body);
      }),
  };
}

export interface ServedInstallation {
  install: Installation;
  server: Server;
  /** `https://localhost:<port>`, the server's BASE_URL. */
  origin: string;
  /** The API with a key of all scopes for a label on the Label plan. */
  api: Api;
  /** The server's certificate, to trust it outside the browser. */
  ca: string;
}

/** A new installation with a label and a key, served over HTTPS by `labeldesk serve` (with `env` added). */
export async function servedInstallation(
  purpose: string,
  cleanups: Cleanups,
  env: Record<string, string> = {},
): Promise<ServedInstallation> {
  const install = await newInstallation(purpose);
  cleanups.push(() => install.dispose());
  const { label } = await cliJson<{ label: { id: number } }>(install, [
    'label',
    'create',
    '--name',
    'Browser Test Records',
    '--plan',
    'label',
    '--contract-signed',
  ]);
  const { key } = await cliJson<{ key: string }>(install, [
    'key',
    'create',
    '--label',
    String(label.id),
    '--scopes',
    'all',
  ]);
  const port = await freePort();
  const origin = `https://localhost:${port}`;
  const server = await startServer(install, { ...env, PORT: String(port), BASE_URL: origin });
  cleanups.push(() => server.stop());
  const ca = readFileSync(join(install.dataDir, 'tls', 'localhost-cert.pem'), 'utf8');
  return { install, server, origin, api: apiClient(port, key, ca), ca };
}

/**
 * A square cover of the required 1400 px: a diagonal gradient with a ring, so a screenshot shows it.
 * PNG unless asked for JPEG, which is what most labels upload.
 */
export function coverArt(format: 'png' | 'jpeg' = 'png'): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1400" height="1400">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
<stop offset="0" stop-color="#ff8a5b"/><stop offset=".55" stop-color="#c2357a"/><stop offset="1" stop-color="#2a0f4f"/>
</linearGradient></defs>
<rect width="1400" height="1400" fill="url(#g)"/>
<circle cx="700" cy="700" r="380" fill="none" stroke="#fff" stroke-opacity=".4" stroke-width="28"/>
<circle cx="700" cy="700" r="90" fill="#fff" fill-opacity=".5"/>
</svg>`;
  const image = sharp(Buffer.from(svg));
  return (format === 'png' ? image.png() : image.jpeg({ quality: 90 })).toBuffer();
}

export interface SmartLink {
  id: number;
  code: string;
  url: string;
  views: number;
  clicks: number;
  presaves: number;
}

export function nextYear(monthDay: string): string {
  return `${new Date().getUTCFullYear() + 1}-${monthDay}`;
}

/** A release with an uploaded cover, for links to show it. */
export async function givenReleaseWithCover(
  api: Api,
  title: string,
  format: 'png' | 'jpeg' = 'png',
): Promise<number> {
  const { artist } = await api.expect<{ artist: { id: number } }>(201, 'POST', '/artists', {
    name: 'Mira Vale',
  });
  const { release } = await api.expect<{ release: { id: number } }>(201, 'POST', '/releases', {
    artist_id: artist.id,
    type: 'single',
    title,
    genre: 'Pop',
    release_date: '2025-11-14',
  });
  const cover = await api.putBytes(
    `/releases/${release.id}/cover`,
    await coverArt(format),
    `image/${format}`,
  );
  assert.equal(cover.status, 200, JSON.stringify(cover.body));
  return release.id;
}
