import { isIP } from 'node:net';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseAllowEntry } from './lib/ip-allow-list.ts';
import { parseDecimal } from './lib/money.ts';
import { redactPasswords } from './lib/redact.ts';
import { isPlatformKey, type PlatformKey } from './modules/platforms/index.ts';

export type ModerationMode = 'auto' | 'manual';
export type DistributorKind = 'simulated' | 'ddex';
export const DISTRIBUTOR_KINDS: readonly DistributorKind[] = ['simulated', 'ddex'];
/** What a `serve` process does: `api` answers HTTP and runs no jobs, `worker` runs jobs and answers only `/status`. */
export type ProcessRole = 'all' | 'api' | 'worker';
export const PROCESS_ROLES: readonly ProcessRole[] = ['all', 'api', 'worker'];

export interface Config {
  readonly dataDir: string;
  readonly role: ProcessRole;
  /** `postgres://…` selects PostgreSQL; null means the SQLite file in the data dir. */
  readonly databaseUrl: string | null;
  readonly redisUrl: string | null;
  /** PostgreSQL connections this process opens at most (DATABASE_POOL_SIZE). */
  readonly databasePoolSize: number;
  readonly host: string;
  readonly port: number;
  readonly baseUrl: string;
  readonly shortLinkBase: string;
  readonly tlsCertFile: string | null;
  readonly tlsKeyFile: string | null;
  /**
   * The proxies allowed to speak for a client (X-Forwarded-For, X-Forwarded-Proto), as normalized
   * `address/bits` ranges; null when the server terminates TLS itself.
   */
  readonly trustProxy: readonly string[] | null;
  readonly secret: string | null;
  readonly moderation: ModerationMode;
  readonly webhookRetryDelaysMs: readonly number[];
  readonly webhookTimeoutMs: number;
  readonly webhookAllowCidrs: readonly string[];
  readonly sandboxLiveAfterMs: number;
  readonly distributor: DistributorKind;
  readonly distributorStepMs: number;
  readonly distributorRejectRate: number;
  /** Shared secret of the signed inbound report endpoint; null leaves the endpoint closed. */
  readonly distributorSecret: string | null;
  /** GS1 company prefix of the UPCs (EAN-13) assigned to releases that have none. */
  readonly upcPrefix: string;
  /** ISRC country code and registrant code of the ISRCs assigned to tracks that have none. */
  readonly isrcCountry: string;
  readonly isrcRegistrant: string;
  /** The smallest withdrawal a label may ask for, in cents. */
  readonly minWithdrawalCents: number;
  readonly media: MediaLocation;
  readonly s3: S3Settings;
  readonly ddex: DdexSettings;
}

/** A party of a DDEX message header: a DPID and, for people reading the message, a name. */
export interface DdexParty {
  readonly id: string;
  readonly name: string | null;
}

/** Who DDEX messages come from and go to, and where the `ddex` distributor writes its batches. */
export interface DdexSettings {
  /** The operator as sender (DDEX_PARTY_ID, DDEX_PARTY_NAME); null leaves DDEX export off. */
  readonly sender: { readonly id: string; readonly name: string } | null;
  /** The recipient of `GET /releases/{id}/ddex` when the request names none. */
  readonly recipient: DdexParty | null;
  /** Where batches go (DDEX_OUTBOX_URL): a folder or a bucket, as MEDIA_URL names one. */
  readonly outbox: MediaLocation | null;
  /** The platforms a batch is written for, each with its DPID (DDEX_PLATFORMS), in the order given. */
  readonly platforms: readonly DdexPlatform[];
}

export interface DdexPlatform {
  readonly key: PlatformKey;
  readonly partyId: string;
}

/** Where stored media (covers, audio) live: a local folder, or a bucket and key prefix. */
export type MediaLocation =
  | { readonly kind: 'file'; readonly root: string }
  | { readonly kind: 's3'; readonly bucket: string; readonly prefix: string };

/** How to reach an S3 API; used only when media are in a bucket. */
export interface S3Settings {
  /** null: AWS itself, found from the region. */
  readonly endpoint: string | null;
  readonly forcePathStyle: boolean;
  readonly region: string;
  /** null leaves credentials to the SDK's provider chain (profiles, instance or task roles). */
  readonly credentials: {
    readonly accessKeyId: string;
    readonly secretAccessKey: string;
    readonly sessionToken?: string;
  } | null;
}

export type Env = Readonly<Record<string, string | undefined>>;

/** A bad value in the environment: the message is the one line the operator sees. */
export class ConfigError extends Error {}

function fail(name: string, problem: string, value: string): never {
  throw new ConfigError(`${name}: ${problem} (got "${redactPasswords(value)}")`);
}

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(name: string, value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(value.trim());
  const unit = match?.[2];
  if (!match?.[1] || !unit) fail(name, 'expected a duration such as 500ms, 30s, 5m or 1h', value);
  return Math.round(Number(match[1]) * (DURATION_UNITS_MS[unit] ?? 1));
}

function parseUrl(name: string, value: string, protocols: readonly string[]): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    fail(name, 'expected an absolute URL', value);
  }
  if (!protocols.includes(url.protocol)) fail(name, `expected a ${protocols.join(' or ')} URL`, value);
  return value.replace(/\/+$/, '');
}

/** A public base address: links are made by appending paths, so it may carry no query or fragment. */
function parsePublicBase(
  name: string,
  value: string,
  protocols: readonly string[] = ['https:', 'http:'],
): string {
  const base = parseUrl(name, value, protocols);
  const url = new URL(base);
  if (url.search || url.hash || url.username || url.password) {
    fail(name, 'expected a base address without query, fragment or credentials', value);
  }
  return base;
}

/** A listening address: an IP address or a host name (resolution happens when the server starts). */
function parseHost(name: string, value: string): string {
  const hostName =
    /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
  if (isIP(value) === 0 && !hostName.test(value)) fail(name, 'expected an IP address or a host name', value);
  return value;
}

/** What `1`/`true` has always meant: a proxy on the same machine. */
const LOOPBACK_RANGES: readonly string[] = ['127.0.0.0/8', '::1/128'];

/**
 * The proxies' addresses or CIDR ranges, comma-separated; the usual spellings of yes (loopback
 * only, as before lists were accepted) and no (not behind a proxy).
 */
function parseTrustProxy(name: string, value: string): readonly string[] | null {
  const normalized = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(normalized)) return LOOPBACK_RANGES;
  if (['0', 'false', 'no', 'off', ''].includes(normalized)) return null;
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) fail(name, 'expected proxy addresses or CIDR ranges, 1 or 0', value);
  const ranges = entries.map((entry) => {
    try {
      const [address, bits] = parseAllowEntry(entry);
      return `${address.toString()}/${bits}`;
    } catch {
      return fail(
        name,
        `"${entry}" is not an IP address or CIDR range such as 10.0.0.0/8 (or 1 for loopback, 0 for none)`,
        value,
      );
    }
  });
  return Object.freeze(ranges);
}

function parsePort(name: string, value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port < 0 || port > 65535) fail(name, 'expected a port number 0-65535', value);
  return port;
}

function parseOneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  const found = allowed.find((candidate) => candidate === value);
  if (!found) fail(name, `expected one of ${allowed.join(', ')}`, value);
  return found;
}

function parseCidrList(name: string, value: string): string[] {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    try {
      parseAllowEntry(entry);
    } catch {
      fail(name, `"${entry}" is not a CIDR range such as 10.0.0.0/8 or fd00::/8`, value);
    }
  }
  return entries;
}

/** The pool size when DATABASE_POOL_SIZE is not set: pg's own default. */
export const DEFAULT_DATABASE_POOL_SIZE = 10;
/** Far above any server's max_connections in practice: a larger number is a typo. */
const MAX_DATABASE_POOL_SIZE = 1000;

function parseCount(name: string, value: string, max: number): number {
  const count = Number(value);
  if (!/^\d+$/.test(value.trim()) || count < 1 || count > max) {
    fail(name, `expected a whole number from 1 to ${max}`, value);
  }
  return count;
}

function parseRate(name: string, value: string): number {
  const rate = Number(value);
  if (value.trim() === '' || !Number.isFinite(rate) || rate < 0 || rate > 1) {
    fail(name, 'expected a fraction between 0 and 1', value);
  }
  return rate;
}

function parsePattern(name: string, value: string, pattern: RegExp, expected: string): string {
  const text = value.trim().toUpperCase();
  if (!pattern.test(text)) fail(name, expected, value);
  return text;
}

function parseDollars(name: string, value: string): number {
  const cents = parseDecimal(value, 2);
  if (cents === null || cents < 0) fail(name, 'expected an amount in dollars such as 50 or 25.50', value);
  return cents;
}

function parseFilePath(name: string, value: string): string {
  if (value.trim() === '') fail(name, 'expected a file path', value);
  return resolve(value);
}

/** S3 bucket names: 3-63 lower-case letters, digits, dots and hyphens, starting and ending with a letter or digit. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** `file:///absolute/path` or `s3://bucket/optional/prefix`. */
export function parseMediaUrl(name: string, value: string): MediaLocation {
  const expected = 'expected file:///absolute/path or s3://bucket/optional/prefix';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    fail(name, expected, value);
  }
  if (url.search || url.hash || url.username || url.password) fail(name, expected, value);
  if (url.protocol === 'file:') {
    if (url.host !== '') fail(name, `${expected} (a file URL names no host)`, value);
    return { kind: 'file', root: fileURLToPath(url).replace(/\/+$/, '') || '/' };
  }
  if (url.protocol !== 's3:') fail(name, expected, value);
  if (!BUCKET_NAME.test(url.host)) fail(name, 'expected a bucket name of 3-63 a-z, 0-9, . and -', value);
  const prefix = decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, '');
  return { kind: 's3', bucket: url.host, prefix };
}

function parseFlag(name: string, value: string): boolean {
  const normalized = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(normalized)) return true;
  if (['0', 'false', 'no', 'off'].includes(normalized)) return false;
  return fail(name, 'expected 1 or 0', value);
}

function parseS3Settings(read: (name: string) => string | undefined): S3Settings {
  const endpoint = read('S3_ENDPOINT');
  const accessKeyId = read('AWS_ACCESS_KEY_ID');
  const secretAccessKey = read('AWS_SECRET_ACCESS_KEY');
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
    throw new ConfigError('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: set both or neither');
  }
  const sessionToken = read('AWS_SESSION_TOKEN');
  const region = read('AWS_REGION') ?? read('AWS_DEFAULT_REGION') ?? 'us-east-1';
  if (!/^[a-z0-9-]{1,64}$/.test(region)) fail('AWS_REGION', 'expected a region such as eu-west-1', region);
  return {
    endpoint: endpoint ? parsePublicBase('S3_ENDPOINT', endpoint) : null,
    forcePathStyle: parseFlag('S3_FORCE_PATH_STYLE', read('S3_FORCE_PATH_STYLE') ?? '0'),
    region,
    credentials:
      accessKeyId && secretAccessKey
        ? { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) }
        : null,
  };
}

/**
 * A DDEX Party ID: `PADPIDA`, the date of allocation and a serial (10 digits) and a check character,
 * as DDEX allocates them (PADPIDA2011072101T).
 */
const DPID = /^PADPIDA[A-Z0-9]{11}$/;
const DPID_EXPECTED =
  'expected a DDEX Party ID: PADPIDA and 11 letters or digits, such as PADPIDA2011072101T';

function parseDpid(name: string, value: string): string {
  return parsePattern(name, value, DPID, DPID_EXPECTED);
}

/** `spotify=PADPIDA…,deezer=PADPIDA…`: the platforms the ddex distributor writes batches for. */
function parseDdexPlatforms(name: string, value: string): DdexPlatform[] {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const platforms = entries.map((entry) => {
    const [key = '', partyId = '', ...rest] = entry.split('=').map((part) => part.trim());
    if (rest.length > 0 || !isPlatformKey(key)) {
      fail(name, `"${entry}" is not KEY=DPID with a platform key of GET /api/v1/platforms`, value);
    }
    if (!DPID.test(partyId.toUpperCase())) fail(name, `"${entry}": ${DPID_EXPECTED}`, value);
    return { key, partyId: partyId.toUpperCase() };
  });
  if (new Set(platforms.map((platform) => platform.key)).size !== platforms.length) {
    fail(name, 'a platform is listed twice', value);
  }
  return platforms;
}

function parseDdexSettings(
  read: (name: string) => string | undefined,
  distributor: DistributorKind,
): DdexSettings {
  const partyId = read('DDEX_PARTY_ID');
  const partyName = read('DDEX_PARTY_NAME')?.trim();
  if (Boolean(partyId) !== Boolean(partyName)) {
    throw new ConfigError('DDEX_PARTY_ID and DDEX_PARTY_NAME: set both or neither');
  }
  const recipientId = read('DDEX_RECIPIENT_ID');
  const recipientName = read('DDEX_RECIPIENT_NAME')?.trim();
  if (recipientName && !recipientId) {
    throw new ConfigError('DDEX_RECIPIENT_NAME: set DDEX_RECIPIENT_ID too (the name goes with the Party ID)');
  }
  const outbox = read('DDEX_OUTBOX_URL');
  const platforms = parseDdexPlatforms('DDEX_PLATFORMS', read('DDEX_PLATFORMS') ?? '');
  if (distributor === 'ddex') {
    const missing = [
      ['DDEX_PARTY_ID', partyId],
      ['DDEX_OUTBOX_URL', outbox],
      ['DDEX_PLATFORMS', platforms.length > 0 ? 'listed' : undefined],
    ].flatMap(([variable, value]) => (value ? [] : [variable]));
    if (missing.length > 0) {
      throw new ConfigError(`DISTRIBUTOR: ddex needs ${missing.join(', ')} set`);
    }
  }
  return {
    sender: partyId && partyName ? { id: parseDpid('DDEX_PARTY_ID', partyId), name: partyName } : null,
    recipient: recipientId
      ? { id: parseDpid('DDEX_RECIPIENT_ID', recipientId), name: recipientName ?? null }
      : null,
    outbox: outbox ? parseMediaUrl('DDEX_OUTBOX_URL', outbox) : null,
    platforms: Object.freeze(platforms),
  };
}

/** Reads and validates the environment once; everything else takes the returned, frozen Config. */
export function loadConfig(env: Env): Config {
  const read = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value === '' ? undefined : value;
  };
  const dataDirRaw = read('LABELDESK_DATA_DIR') ?? './data';
  const dataDir = isAbsolute(dataDirRaw) ? dataDirRaw : resolve(dataDirRaw);

  const databaseUrlRaw = read('DATABASE_URL');
  const databaseUrl = databaseUrlRaw
    ? parseUrl('DATABASE_URL', databaseUrlRaw, ['postgres:', 'postgresql:'])
    : null;
  const redisUrlRaw = read('REDIS_URL');
  const redisUrl = redisUrlRaw ? parseUrl('REDIS_URL', redisUrlRaw, ['redis:', 'rediss:']) : null;

  const port = parsePort('PORT', read('PORT') ?? '8443');
  const baseUrl = parsePublicBase('BASE_URL', read('BASE_URL') ?? 'https://localhost:8443');
  const shortLinkBase = parsePublicBase('SHORT_LINK_BASE', read('SHORT_LINK_BASE') ?? `${baseUrl}/l`);

  const certRaw = read('TLS_CERT_FILE');
  const keyRaw = read('TLS_KEY_FILE');
  if (Boolean(certRaw) !== Boolean(keyRaw)) {
    throw new ConfigError('TLS_CERT_FILE and TLS_KEY_FILE: set both or neither');
  }

  const secret = read('LABELDESK_SECRET') ?? null;
  if (secret !== null && secret.length < 32) {
    throw new ConfigError('LABELDESK_SECRET: expected at least 32 characters');
  }

  const distributorSecret = read('DISTRIBUTOR_SECRET') ?? null;
  if (distributorSecret !== null && distributorSecret.length < 32) {
    throw new ConfigError('DISTRIBUTOR_SECRET: expected at least 32 characters');
  }

  const distributor = parseOneOf('DISTRIBUTOR', read('DISTRIBUTOR') ?? 'simulated', DISTRIBUTOR_KINDS);

  const retryDelaysRaw = read('WEBHOOK_RETRY_DELAYS') ?? '30s,5m';
  const webhookRetryDelaysMs = retryDelaysRaw
    .split(',')
    .map((part) => parseDuration('WEBHOOK_RETRY_DELAYS', part));

  return Object.freeze({
    dataDir,
    role: parseOneOf('LABELDESK_ROLE', read('LABELDESK_ROLE') ?? 'all', PROCESS_ROLES),
    databaseUrl,
    redisUrl,
    databasePoolSize: parseCount(
      'DATABASE_POOL_SIZE',
      read('DATABASE_POOL_SIZE') ?? String(DEFAULT_DATABASE_POOL_SIZE),
      MAX_DATABASE_POOL_SIZE,
    ),
    host: parseHost('HOST', read('HOST') ?? '127.0.0.1'),
    port,
    baseUrl,
    shortLinkBase,
    tlsCertFile: certRaw ? parseFilePath('TLS_CERT_FILE', certRaw) : null,
    tlsKeyFile: keyRaw ? parseFilePath('TLS_KEY_FILE', keyRaw) : null,
    trustProxy: parseTrustProxy('TRUST_PROXY', read('TRUST_PROXY') ?? 'false'),
    secret,
    moderation: parseOneOf('MODERATION', read('MODERATION') ?? 'auto', ['auto', 'manual'] as const),
    webhookRetryDelaysMs: Object.freeze(webhookRetryDelaysMs),
    webhookTimeoutMs: parseDuration('WEBHOOK_TIMEOUT', read('WEBHOOK_TIMEOUT') ?? '10s'),
    webhookAllowCidrs: Object.freeze(parseCidrList('WEBHOOK_ALLOW_CIDRS', read('WEBHOOK_ALLOW_CIDRS') ?? '')),
    sandboxLiveAfterMs: parseDuration('SANDBOX_LIVE_AFTER', read('SANDBOX_LIVE_AFTER') ?? '45s'),
    distributor,
    distributorStepMs: parseDuration('DISTRIBUTOR_STEP', read('DISTRIBUTOR_STEP') ?? '1m'),
    distributorRejectRate: parseRate('DISTRIBUTOR_REJECT_RATE', read('DISTRIBUTOR_REJECT_RATE') ?? '0.05'),
    distributorSecret,
    upcPrefix: parsePattern(
      'UPC_PREFIX',
      read('UPC_PREFIX') ?? '0860000',
      /^\d{6,10}$/,
      'expected a GS1 company prefix of 6 to 10 digits',
    ),
    isrcCountry: parsePattern(
      'ISRC_COUNTRY',
      read('ISRC_COUNTRY') ?? 'US',
      /^[A-Z]{2}$/,
      'expected two letters',
    ),
    isrcRegistrant: parsePattern(
      'ISRC_REGISTRANT',
      read('ISRC_REGISTRANT') ?? 'LD0',
      /^[A-Z0-9]{3}$/,
      'expected three letters or digits',
    ),
    minWithdrawalCents: parseDollars('MIN_WITHDRAWAL', read('MIN_WITHDRAWAL') ?? '50.00'),
    media: Object.freeze(
      parseMediaUrl('MEDIA_URL', read('MEDIA_URL') ?? pathToFileURL(join(dataDir, 'media')).href),
    ),
    s3: Object.freeze(parseS3Settings(read)),
    ddex: Object.freeze(parseDdexSettings(read, distributor)),
  });
}
