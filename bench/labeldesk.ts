import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { runNodeScript } from './children.ts';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = 'bin/labeldesk.js';
const API_TIMEOUT_MS = 30_000;

/** High enough that the per-key limit never answers 429 during a run, so every answer measured is real work. */
const UNBOUNDED_RATE = 100_000_000;

/**
 * The environment of every Labeldesk process: the temporary data dir, and the defaults (SQLite, the
 * in-process rate limiter) even when the caller's shell points at PostgreSQL or Redis.
 */
export function labeldeskEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, LABELDESK_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', ...extra };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function parseJson(command: string, stdout: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(stdout);
  if (!isRecord(parsed)) throw new Error(`${command} printed ${stdout.trim()}, not a JSON object`);
  return parsed;
}

async function cli(dataDir: string, args: readonly string[]): Promise<string> {
  return runNodeScript([CLI, ...args], { cwd: REPO_ROOT, env: labeldeskEnv(dataDir) });
}

async function createLabel(dataDir: string): Promise<number> {
  const stdout = await cli(dataDir, [
    'label',
    'create',
    '--name',
    'Bench',
    '--plan',
    'label',
    '--contract-signed',
    '--json',
  ]);
  const { label } = parseJson('label create', stdout);
  const id = isRecord(label) ? label.id : undefined;
  if (typeof id !== 'number') throw new Error(`label create printed no label id: ${stdout.trim()}`);
  return id;
}

async function createKey(dataDir: string, labelId: number): Promise<string> {
  const stdout = await cli(dataDir, [
    'key',
    'create',
    '--label',
    String(labelId),
    '--scopes',
    'all',
    '--json',
  ]);
  const { key } = parseJson('key create', stdout);
  if (typeof key !== 'string') throw new Error(`key create printed no key: ${stdout.trim()}`);
  return key;
}

/** A migrated database with one label on the Label plan and one all-scopes key; returns the key. */
export async function prepareDataDir(dataDir: string): Promise<string> {
  await cli(dataDir, ['migrate']);
  const labelId = await createLabel(dataDir);
  await cli(dataDir, ['label', 'update', String(labelId), '--limit', `rate=${UNBOUNDED_RATE}`]);
  return createKey(dataDir, labelId);
}

/**
 * One call of the API of a running server, as a client would make it, for the data a bench sets up
 * or checks; any answer but `expectStatus` fails with its body.
 */
export async function apiJson(
  origin: string,
  headers: Record<string, string>,
  request: { method: 'GET' | 'POST'; path: string; body?: unknown; expectStatus?: number },
): Promise<Record<string, unknown>> {
  const response = await fetch(`${origin}${request.path}`, {
    method: request.method,
    headers: request.body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: request.body === undefined ? null : JSON.stringify(request.body),
    signal: AbortSignal.timeout(API_TIMEOUT_MS),
  });
  const text = await response.text();
  const expected = request.expectStatus ?? 200;
  if (response.status !== expected) {
    throw new Error(`${request.method} ${request.path} answered ${response.status}: ${text.slice(0, 300)}`);
  }
  return parseJson(`${request.method} ${request.path}`, text);
}

function valueAt(answer: Record<string, unknown>, path: readonly string[]): unknown {
  let value: unknown = answer;
  for (const step of path) value = isRecord(value) ? value[step] : undefined;
  return value;
}

/** The number at `path` in an answer (`['smart_link', 'id']`); fails with the answer when there is none. */
export function numberAt(answer: Record<string, unknown>, path: readonly string[]): number {
  const value = valueAt(answer, path);
  if (typeof value !== 'number') {
    throw new Error(`the answer has no number at ${path.join('.')}: ${JSON.stringify(answer).slice(0, 300)}`);
  }
  return value;
}

export function stringAt(answer: Record<string, unknown>, path: readonly string[]): string {
  const value = valueAt(answer, path);
  if (typeof value !== 'string') {
    throw new Error(`the answer has no string at ${path.join('.')}: ${JSON.stringify(answer).slice(0, 300)}`);
  }
  return value;
}

/**
 * The server logs one JSON line per request; the failed ones (4xx, 5xx: a redirect's 302 is an
 * answer) say more than a count of status codes.
 */
export function failedLogLines(logFile: string, limit: number): string {
  let log: string;
  try {
    log = readFileSync(logFile, 'utf8');
  } catch {
    return '(no log)';
  }
  const failed = log.split('\n').filter((line) => /"status":[45]\d\d\b/.test(line));
  return failed.length === 0 ? '(none logged)' : failed.slice(0, limit).join('\n');
}

/** POSTs the body as it is generated; resolves with the status and the answer's text. */
export function postStream(
  url: string,
  headers: Record<string, string>,
  body: Readable,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: 'POST', headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      response.on('error', reject);
    });
    request.on('error', reject);
    pipeline(body, request).catch(reject);
  });
}

/** The 44-byte header of a PCM WAV holding `dataBytes` of samples in the given shape. */
export function pcmWavHeader(
  dataBytes: number,
  shape: { sampleRate: number; channels: number; bits: number },
): Buffer {
  const blockAlign = (shape.bits / 8) * shape.channels;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(shape.channels, 22);
  header.writeUInt32LE(shape.sampleRate, 24);
  header.writeUInt32LE(shape.sampleRate * blockAlign, 28);
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(shape.bits, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}
