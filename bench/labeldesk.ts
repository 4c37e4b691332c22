import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runNodeScript } from './children.ts';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = 'bin/labeldesk.js';

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

/** The server logs one JSON line per request; the failed ones say more than a count of status codes. */
export function non2xxLogLines(logFile: string, limit: number): string {
  let log: string;
  try {
    log = readFileSync(logFile, 'utf8');
  } catch {
    return '(no log)';
  }
  const failed = log.split('\n').filter((line) => /"status":(?!2\d\d\b)\d{3}\b/.test(line));
  return failed.length === 0 ? '(none logged)' : failed.slice(0, limit).join('\n');
}
