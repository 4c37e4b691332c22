import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Config, ConfigError, type Env, loadConfig, parseDuration } from '../src/config.ts';
import { SOURCES } from './helpers/installation.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DATA_DIR = '/srv/labeldesk-data';
const SECRET = 'k'.repeat(32);

function configError(env: Env): string {
  try {
    loadConfig({ LABELDESK_DATA_DIR: DATA_DIR, ...env });
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error.message;
  }
  assert.fail(`expected ${JSON.stringify(env)} to be refused`);
}

describe('loadConfig', () => {
  test('with only LABELDESK_DATA_DIR every other variable takes its documented default', () => {
    const config = loadConfig({ LABELDESK_DATA_DIR: DATA_DIR });
    const expected: Config = {
      dataDir: DATA_DIR,
      role: 'all',
      databaseUrl: null,
      redisUrl: null,
      databasePoolSize: 10,
      host: '127.0.0.1',
      port: 8443,
      baseUrl: 'https://localhost:8443',
      shortLinkBase: 'https://localhost:8443/l',
      tlsCertFile: null,
      tlsKeyFile: null,
      trustProxy: null,
      secret: null,
      moderation: 'auto',
      webhookRetryDelaysMs: [30_000, 300_000],
      webhookTimeoutMs: 10_000,
      webhookAllowCidrs: [],
      sandboxLiveAfterMs: 45_000,
      distributor: 'simulated',
      distributorStepMs: 60_000,
      distributorRejectRate: 0.05,
      distributorSecret: null,
      upcPrefix: '0860000',
      isrcCountry: 'US',
      isrcRegistrant: 'LD0',
      minWithdrawalCents: 5000,
      media: { kind: 'file', root: join(DATA_DIR, 'media') },
      s3: { endpoint: null, forcePathStyle: false, region: 'us-east-1', credentials: null },
      ddex: { sender: null, recipient: null, outbox: null, platforms: [] },
    };
    assert.deepEqual(config, expected);
    assert.ok(Object.isFrozen(config));
    assert.ok(Object.isFrozen(config.webhookRetryDelaysMs));
  });

  test('an empty environment puts the data dir at ./data', () => {
    assert.equal(loadConfig({}).dataDir, resolve('data'));
  });

  test('a relative data dir is resolved against the working directory', () => {
    assert.equal(loadConfig({ LABELDESK_DATA_DIR: 'var/ld' }).dataDir, resolve('var/ld'));
  });

  test('empty values count as unset', () => {
    const config = loadConfig({
      LABELDESK_DATA_DIR: DATA_DIR,
      PORT: '',
      MODERATION: '',
      TRUST_PROXY: '',
      DATABASE_URL: '',
      WEBHOOK_RETRY_DELAYS: '',
    });
    assert.deepEqual(config, loadConfig({ LABELDESK_DATA_DIR: DATA_DIR }));
  });

  test('every variable of the operator contract is read', () => {
    const config = loadConfig({
      LABELDESK_DATA_DIR: DATA_DIR,
      LABELDESK_ROLE: 'worker',
      DATABASE_URL: 'postgres://labeldesk:pw@db.internal:5432/labeldesk',
      REDIS_URL: 'redis://cache.internal:6379/0',
      DATABASE_POOL_SIZE: '25',
      HOST: '0.0.0.0',
      PORT: '9443',
      BASE_URL: 'https://api.example.com/',
      SHORT_LINK_BASE: 'https://lnk.example.com',
      TLS_CERT_FILE: '/etc/labeldesk/cert.pem',
      TLS_KEY_FILE: '/etc/labeldesk/key.pem',
      TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,fd00::/8',
      LABELDESK_SECRET: SECRET,
      MODERATION: 'manual',
      WEBHOOK_RETRY_DELAYS: '250ms, 2s,1m,1h',
      WEBHOOK_TIMEOUT: '1.5s',
      WEBHOOK_ALLOW_CIDRS: '10.0.0.0/8, 192.168.1.0/24,fd00::/8',
      SANDBOX_LIVE_AFTER: '2s',
      DISTRIBUTOR: 'ddex',
      DISTRIBUTOR_STEP: '500ms',
      DISTRIBUTOR_REJECT_RATE: '0',
      DISTRIBUTOR_SECRET: SECRET,
      UPC_PREFIX: '5012345',
      ISRC_COUNTRY: 'gb',
      ISRC_REGISTRANT: 'a1b',
      MIN_WITHDRAWAL: '25.5',
      MEDIA_URL: 's3://labeldesk-media/prod/media/',
      S3_ENDPOINT: 'https://s3.eu-central-1.example.com/',
      S3_FORCE_PATH_STYLE: '1',
      AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'secret-example',
      AWS_REGION: 'eu-central-1',
      DDEX_PARTY_ID: 'padpida2026112701l',
      DDEX_PARTY_NAME: ' Labeldesk Distribution ',
      DDEX_RECIPIENT_ID: 'PADPIDA2011072101T',
      DDEX_RECIPIENT_NAME: 'Example Music Service',
      DDEX_OUTBOX_URL: 's3://labeldesk-outbox/ddex/',
      DDEX_PLATFORMS: 'spotify=PADPIDA2011072101T, deezer = padpida2099010101x',
    });
    const expected: Config = {
      dataDir: DATA_DIR,
      role: 'worker',
      databaseUrl: 'postgres://labeldesk:pw@db.internal:5432/labeldesk',
      redisUrl: 'redis://cache.internal:6379/0',
      databasePoolSize: 25,
      host: '0.0.0.0',
      port: 9443,
      baseUrl: 'https://api.example.com',
      shortLinkBase: 'https://lnk.example.com',
      tlsCertFile: '/etc/labeldesk/cert.pem',
      tlsKeyFile: '/etc/labeldesk/key.pem',
      trustProxy: ['127.0.0.1/32', '10.0.0.0/8', 'fd00::/8'],
      secret: SECRET,
      moderation: 'manual',
      webhookRetryDelaysMs: [250, 2_000, 60_000, 3_600_000],
      webhookTimeoutMs: 1_500,
      webhookAllowCidrs: ['10.0.0.0/8', '192.168.1.0/24', 'fd00::/8'],
      sandboxLiveAfterMs: 2_000,
      distributor: 'ddex',
      distributorStepMs: 500,
      distributorRejectRate: 0,
      distributorSecret: SECRET,
      upcPrefix: '5012345',
      isrcCountry: 'GB',
      isrcRegistrant: 'A1B',
      minWithdrawalCents: 2550,
      media: { kind: 's3', bucket: 'labeldesk-media', prefix: 'prod/media' },
      s3: {
        endpoint: 'https://s3.eu-central-1.example.com',
        forcePathStyle: true,
        region: 'eu-central-1',
        credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret-example' },
      },
      ddex: {
        sender: { id: 'PADPIDA2026112701L', name: 'Labeldesk Distribution' },
        recipient: { id: 'PADPIDA2011072101T', name: 'Example Music Service' },
        outbox: { kind: 's3', bucket: 'labeldesk-outbox', prefix: 'ddex' },
        platforms: [
          { key: 'spotify', partyId: 'PADPIDA2011072101T' },
          { key: 'deezer', partyId: 'PADPIDA2099010101X' },
        ],
      },
    };
    assert.deepEqual(config, expected);
  });

  test('MEDIA_URL takes a folder as file:///path or a bucket with an optional prefix', () => {
    const media = (url: string) => loadConfig({ LABELDESK_DATA_DIR: DATA_DIR, MEDIA_URL: url }).media;
    assert.deepEqual(media('file:///mnt/media/'), { kind: 'file', root: '/mnt/media' });
    assert.deepEqual(media('s3://covers-and-audio'), { kind: 's3', bucket: 'covers-and-audio', prefix: '' });
    assert.deepEqual(media('s3://my.bucket/a/b'), { kind: 's3', bucket: 'my.bucket', prefix: 'a/b' });
  });

  test('bad media and S3 settings are refused with one line naming the variable', () => {
    const expected = 'expected file:///absolute/path or s3://bucket/optional/prefix';
    assert.equal(configError({ MEDIA_URL: '/srv/media' }), `MEDIA_URL: ${expected} (got "/srv/media")`);
    assert.equal(
      configError({ MEDIA_URL: 'https://bucket.example.com' }),
      `MEDIA_URL: ${expected} (got "https://bucket.example.com")`,
    );
    assert.equal(
      configError({ MEDIA_URL: 'file://host/srv/media' }),
      `MEDIA_URL: ${expected} (a file URL names no host) (got "file://host/srv/media")`,
    );
    assert.equal(
      configError({ MEDIA_URL: 's3://Bad_Bucket/x' }),
      'MEDIA_URL: expected a bucket name of 3-63 a-z, 0-9, . and - (got "s3://Bad_Bucket/x")',
    );
    assert.equal(
      configError({ S3_ENDPOINT: 'minio:9000' }),
      'S3_ENDPOINT: expected a https: or http: URL (got "minio:9000")',
    );
    assert.equal(
      configError({ S3_FORCE_PATH_STYLE: 'maybe' }),
      'S3_FORCE_PATH_STYLE: expected 1 or 0 (got "maybe")',
    );
    assert.equal(
      configError({ AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE' }),
      'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: set both or neither',
    );
    assert.equal(
      configError({ AWS_REGION: 'EU West' }),
      'AWS_REGION: expected a region such as eu-west-1 (got "EU West")',
    );
  });

  test('SHORT_LINK_BASE follows BASE_URL by default', () => {
    const config = loadConfig({ LABELDESK_DATA_DIR: DATA_DIR, BASE_URL: 'https://api.example.com' });
    assert.equal(config.shortLinkBase, 'https://api.example.com/l');
  });

  test('relative TLS file paths are resolved', () => {
    const config = loadConfig({
      LABELDESK_DATA_DIR: DATA_DIR,
      TLS_CERT_FILE: 'certs/cert.pem',
      TLS_KEY_FILE: 'certs/key.pem',
    });
    assert.deepEqual(
      { cert: config.tlsCertFile, key: config.tlsKeyFile },
      { cert: resolve('certs/cert.pem'), key: resolve('certs/key.pem') },
    );
  });

  test('DATABASE_URL accepts postgres:// and postgresql://', () => {
    for (const url of ['postgres://localhost/labeldesk', 'postgresql://u@localhost:5433/ld']) {
      assert.equal(loadConfig({ LABELDESK_DATA_DIR: DATA_DIR, DATABASE_URL: url }).databaseUrl, url);
    }
  });

  test('REDIS_URL accepts redis:// and rediss://', () => {
    for (const url of ['redis://localhost:6379', 'rediss://cache.example.com:6380/1']) {
      assert.equal(loadConfig({ LABELDESK_DATA_DIR: DATA_DIR, REDIS_URL: url }).redisUrl, url);
    }
  });

  test('TRUST_PROXY takes the usual spellings of yes (loopback only) and no (no proxy)', () => {
    const read = (value: string) =>
      loadConfig({ LABELDESK_DATA_DIR: DATA_DIR, TRUST_PROXY: value }).trustProxy;
    const loopback = ['127.0.0.0/8', '::1/128'];
    const values = ['1', 'true', 'TRUE', 'yes', 'on', '0', 'false', 'False', 'no', 'off'];
    assert.deepEqual(
      values.map((value) => [value, read(value)]),
      [
        ['1', loopback],
        ['true', loopback],
        ['TRUE', loopback],
        ['yes', loopback],
        ['on', loopback],
        ['0', null],
        ['false', null],
        ['False', null],
        ['no', null],
        ['off', null],
      ],
    );
  });

  test('TRUST_PROXY takes IPv4 and IPv6 addresses and CIDR ranges, written as ranges', () => {
    const read = (value: string) =>
      loadConfig({ LABELDESK_DATA_DIR: DATA_DIR, TRUST_PROXY: value }).trustProxy;
    assert.deepEqual(read('10.1.2.3'), ['10.1.2.3/32']);
    assert.deepEqual(read(' 192.168.0.0/16 , 2001:db8::1, 2001:DB8:0:0::/32 '), [
      '192.168.0.0/16',
      '2001:db8::1/128',
      '2001:db8::/32',
    ]);
    assert.deepEqual(read('::ffff:10.0.0.0/104'), ['10.0.0.0/8']);
  });

  test('PORT takes the whole range 0-65535', () => {
    const read = (value: string) => loadConfig({ LABELDESK_DATA_DIR: DATA_DIR, PORT: value }).port;
    assert.deepEqual(['0', '1', '8443', '65535'].map(read), [0, 1, 8443, 65535]);
  });

  test('DISTRIBUTOR_REJECT_RATE takes fractions from 0 to 1', () => {
    const read = (value: string) =>
      loadConfig({ LABELDESK_DATA_DIR: DATA_DIR, DISTRIBUTOR_REJECT_RATE: value }).distributorRejectRate;
    assert.deepEqual(['0', '0.25', '.5', '1'].map(read), [0, 0.25, 0.5, 1]);
  });

  test('LABELDESK_SECRET of exactly 32 characters is accepted', () => {
    assert.equal(loadConfig({ LABELDESK_DATA_DIR: DATA_DIR, LABELDESK_SECRET: SECRET }).secret, SECRET);
  });
});

describe('parseDuration', () => {
  test('accepts ms, s, m and h, with fractions', () => {
    const cases: Array<[string, number]> = [
      ['0ms', 0],
      ['250ms', 250],
      ['30s', 30_000],
      ['1.5s', 1_500],
      ['5m', 300_000],
      ['0.5m', 30_000],
      ['1h', 3_600_000],
      [' 2h ', 7_200_000],
    ];
    assert.deepEqual(
      cases.map(([text]) => [text, parseDuration('WEBHOOK_TIMEOUT', text)]),
      cases,
    );
  });

  test('refuses a number without a unit, and unknown units', () => {
    for (const text of ['30', '1d', '5 m', 'm', '-1s', '']) {
      assert.throws(() => parseDuration('WEBHOOK_TIMEOUT', text), {
        name: 'Error',
        message: `WEBHOOK_TIMEOUT: expected a duration such as 500ms, 30s, 5m or 1h (got "${text}")`,
      });
    }
  });
});

describe('bad values stop loadConfig with one line naming the variable', () => {
  const DURATION = 'expected a duration such as 500ms, 30s, 5m or 1h';
  const cases: Array<[Env, string]> = [
    [{ PORT: 'abc' }, 'PORT: expected a port number 0-65535 (got "abc")'],
    [{ PORT: '65536' }, 'PORT: expected a port number 0-65535 (got "65536")'],
    [{ PORT: '-1' }, 'PORT: expected a port number 0-65535 (got "-1")'],
    [{ PORT: '80.5' }, 'PORT: expected a port number 0-65535 (got "80.5")'],
    [
      { DATABASE_URL: 'mysql://localhost/ld' },
      'DATABASE_URL: expected a postgres: or postgresql: URL (got "mysql://localhost/ld")',
    ],
    [
      { DATABASE_URL: './labeldesk.sqlite' },
      'DATABASE_URL: expected an absolute URL (got "./labeldesk.sqlite")',
    ],
    [
      { REDIS_URL: 'http://localhost:6379' },
      'REDIS_URL: expected a redis: or rediss: URL (got "http://localhost:6379")',
    ],
    [{ REDIS_URL: 'localhost' }, 'REDIS_URL: expected an absolute URL (got "localhost")'],
    ...['0', '-1', '1.5', 'ten', '1001'].map((size): [Env, string] => [
      { DATABASE_POOL_SIZE: size },
      `DATABASE_POOL_SIZE: expected a whole number from 1 to 1000 (got "${size}")`,
    ]),
    [{ BASE_URL: 'ftp://example.com' }, 'BASE_URL: expected a https: or http: URL (got "ftp://example.com")'],
    [{ BASE_URL: 'example.com' }, 'BASE_URL: expected an absolute URL (got "example.com")'],
    [{ SHORT_LINK_BASE: '/l' }, 'SHORT_LINK_BASE: expected an absolute URL (got "/l")'],
    [{ TLS_CERT_FILE: '/etc/cert.pem' }, 'TLS_CERT_FILE and TLS_KEY_FILE: set both or neither'],
    [{ TLS_KEY_FILE: '/etc/key.pem' }, 'TLS_CERT_FILE and TLS_KEY_FILE: set both or neither'],
    ...['maybe', '10.0.0.0/33', '010.0.0.1', '10.1', 'proxy.internal', '2001:db8::/129', '10.0.0.0/8/8'].map(
      (entry): [Env, string] => [
        { TRUST_PROXY: `127.0.0.1,${entry}` },
        `TRUST_PROXY: "${entry}" is not an IP address or CIDR range such as 10.0.0.0/8 (or 1 for loopback, 0 for none) (got "127.0.0.1,${entry}")`,
      ],
    ),
    [{ TRUST_PROXY: ' , ' }, 'TRUST_PROXY: expected proxy addresses or CIDR ranges, 1 or 0 (got " , ")'],
    [{ LABELDESK_SECRET: 'k'.repeat(31) }, 'LABELDESK_SECRET: expected at least 32 characters'],
    [{ MODERATION: 'sometimes' }, 'MODERATION: expected one of auto, manual (got "sometimes")'],
    [{ MODERATION: 'AUTO' }, 'MODERATION: expected one of auto, manual (got "AUTO")'],
    [{ LABELDESK_ROLE: 'jobs' }, 'LABELDESK_ROLE: expected one of all, api, worker (got "jobs")'],
    [{ WEBHOOK_RETRY_DELAYS: '30s,5' }, `WEBHOOK_RETRY_DELAYS: ${DURATION} (got "5")`],
    [{ WEBHOOK_RETRY_DELAYS: '30s,,5m' }, `WEBHOOK_RETRY_DELAYS: ${DURATION} (got "")`],
    [{ WEBHOOK_TIMEOUT: '10' }, `WEBHOOK_TIMEOUT: ${DURATION} (got "10")`],
    [
      { WEBHOOK_ALLOW_CIDRS: '10.0.0.0/8,banana' },
      'WEBHOOK_ALLOW_CIDRS: "banana" is not a CIDR range such as 10.0.0.0/8 or fd00::/8 (got "10.0.0.0/8,banana")',
    ],
    [
      { WEBHOOK_ALLOW_CIDRS: '10.0.0.0/33' },
      'WEBHOOK_ALLOW_CIDRS: "10.0.0.0/33" is not a CIDR range such as 10.0.0.0/8 or fd00::/8 (got "10.0.0.0/33")',
    ],
    [
      { WEBHOOK_ALLOW_CIDRS: '010.0.0.0/8' },
      'WEBHOOK_ALLOW_CIDRS: "010.0.0.0/8" is not a CIDR range such as 10.0.0.0/8 or fd00::/8 (got "010.0.0.0/8")',
    ],
    [{ SANDBOX_LIVE_AFTER: '45' }, `SANDBOX_LIVE_AFTER: ${DURATION} (got "45")`],
    [{ DISTRIBUTOR: 'spotify' }, 'DISTRIBUTOR: expected one of simulated, ddex (got "spotify")'],
    [{ DISTRIBUTOR: 'ddex' }, 'DISTRIBUTOR: ddex needs DDEX_PARTY_ID, DDEX_OUTBOX_URL, DDEX_PLATFORMS set'],
    [
      {
        DISTRIBUTOR: 'ddex',
        DDEX_PARTY_ID: 'PADPIDA2026112701L',
        DDEX_PARTY_NAME: 'Labeldesk',
        DDEX_PLATFORMS: 'spotify=PADPIDA2011072101T',
      },
      'DISTRIBUTOR: ddex needs DDEX_OUTBOX_URL set',
    ],
    [
      { DDEX_PLATFORMS: 'spotify=PADPIDA2011072101T,myspace=PADPIDA2099010101X' },
      'DDEX_PLATFORMS: "myspace=PADPIDA2099010101X" is not KEY=DPID with a platform key of GET /api/v1/platforms (got "spotify=PADPIDA2011072101T,myspace=PADPIDA2099010101X")',
    ],
    [
      { DDEX_PLATFORMS: 'spotify' },
      'DDEX_PLATFORMS: "spotify": expected a DDEX Party ID: PADPIDA and 11 letters or digits, such as PADPIDA2011072101T (got "spotify")',
    ],
    [
      { DDEX_PLATFORMS: 'spotify=PADPIDA2011072101T,spotify=PADPIDA2099010101X' },
      'DDEX_PLATFORMS: a platform is listed twice (got "spotify=PADPIDA2011072101T,spotify=PADPIDA2099010101X")',
    ],
    [
      { DDEX_OUTBOX_URL: 'sftp://dsp.example.com/inbox' },
      'DDEX_OUTBOX_URL: expected file:///absolute/path or s3://bucket/optional/prefix (got "sftp://dsp.example.com/inbox")',
    ],
    [{ DISTRIBUTOR_STEP: '1d' }, `DISTRIBUTOR_STEP: ${DURATION} (got "1d")`],
    [
      { DISTRIBUTOR_REJECT_RATE: '1.5' },
      'DISTRIBUTOR_REJECT_RATE: expected a fraction between 0 and 1 (got "1.5")',
    ],
    [
      { DISTRIBUTOR_REJECT_RATE: '-0.1' },
      'DISTRIBUTOR_REJECT_RATE: expected a fraction between 0 and 1 (got "-0.1")',
    ],
    [
      { DISTRIBUTOR_REJECT_RATE: '5%' },
      'DISTRIBUTOR_REJECT_RATE: expected a fraction between 0 and 1 (got "5%")',
    ],
    [{ DISTRIBUTOR_SECRET: 'k'.repeat(31) }, 'DISTRIBUTOR_SECRET: expected at least 32 characters'],
    [{ UPC_PREFIX: '12345' }, 'UPC_PREFIX: expected a GS1 company prefix of 6 to 10 digits (got "12345")'],
    [
      { UPC_PREFIX: '08600x0' },
      'UPC_PREFIX: expected a GS1 company prefix of 6 to 10 digits (got "08600x0")',
    ],
    [{ ISRC_COUNTRY: 'USA' }, 'ISRC_COUNTRY: expected two letters (got "USA")'],
    [{ ISRC_REGISTRANT: 'AB-' }, 'ISRC_REGISTRANT: expected three letters or digits (got "AB-")'],
    [
      { MIN_WITHDRAWAL: '50.001' },
      'MIN_WITHDRAWAL: expected an amount in dollars such as 50 or 25.50 (got "50.001")',
    ],
    [
      { MIN_WITHDRAWAL: '-5' },
      'MIN_WITHDRAWAL: expected an amount in dollars such as 50 or 25.50 (got "-5")',
    ],
    [{ DDEX_PARTY_ID: 'PADPIDA2026112701L' }, 'DDEX_PARTY_ID and DDEX_PARTY_NAME: set both or neither'],
    [{ DDEX_PARTY_NAME: 'Labeldesk' }, 'DDEX_PARTY_ID and DDEX_PARTY_NAME: set both or neither'],
    ...['PADPIDA20261127', 'PADPIDA2026112701LX', 'PADPIDB2026112701L', 'PADPIDA2026-12701L'].map(
      (id): [Env, string] => [
        { DDEX_PARTY_ID: id, DDEX_PARTY_NAME: 'Labeldesk' },
        `DDEX_PARTY_ID: expected a DDEX Party ID: PADPIDA and 11 letters or digits, such as PADPIDA2011072101T (got "${id}")`,
      ],
    ),
    [
      { DDEX_RECIPIENT_ID: 'spotify' },
      'DDEX_RECIPIENT_ID: expected a DDEX Party ID: PADPIDA and 11 letters or digits, such as PADPIDA2011072101T (got "spotify")',
    ],
    [
      { DDEX_RECIPIENT_NAME: 'Example Music Service' },
      'DDEX_RECIPIENT_NAME: set DDEX_RECIPIENT_ID too (the name goes with the Party ID)',
    ],
  ];

  for (const [env, message] of cases) {
    test(`${JSON.stringify(env)}`, () => {
      assert.equal(configError(env), message);
    });
  }

  test('every message is one line that starts with the variable it names', () => {
    for (const [env] of cases) {
      const message = configError(env);
      const [name = ''] = Object.keys(env);
      assert.match(message, /^[A-Z_]+(?: and [A-Z_]+)?: [^\n]+$/);
      assert.ok(message.split(':')[0]?.includes(name), message);
    }
  });

  test('a short LABELDESK_SECRET is not echoed back', () => {
    assert.doesNotMatch(configError({ LABELDESK_SECRET: 'hunter2-hunter2' }), /hunter2/);
  });
});

interface Exit {
  code: number;
  stdout: string;
  stderr: string;
}

function runCli(args: string[], env: Env): Promise<Exit> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [SOURCES.bin, ...args],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...SOURCES.env, ...env },
        timeout: 30_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

describe('the command line refuses a bad environment before doing anything', () => {
  const cases: Array<[string[], Env, string]> = [
    [['migrate'], { PORT: 'abc' }, 'labeldesk: PORT: expected a port number 0-65535 (got "abc")'],
    [
      ['migrate', '--json'],
      { MODERATION: 'sometimes' },
      'labeldesk: MODERATION: expected one of auto, manual (got "sometimes")',
    ],
    [
      ['label', 'list'],
      { DATABASE_URL: 'mysql://localhost/ld' },
      'labeldesk: DATABASE_URL: expected a postgres: or postgresql: URL (got "mysql://localhost/ld")',
    ],
    [
      ['serve'],
      { DISTRIBUTOR_REJECT_RATE: '2' },
      'labeldesk: DISTRIBUTOR_REJECT_RATE: expected a fraction between 0 and 1 (got "2")',
    ],
  ];

  for (const [args, env, line] of cases) {
    test(`labeldesk ${args.join(' ')} with ${JSON.stringify(env)}`, async (t) => {
      const parent = mkdtempSync(join(tmpdir(), 'labeldesk-config-'));
      t.after(() => rmSync(parent, { recursive: true, force: true }));
      const dataDir = join(parent, 'data');

      const exit = await runCli(args, { LABELDESK_DATA_DIR: dataDir, ...env });

      assert.deepEqual(exit, { code: 1, stdout: '', stderr: `${line}\n` });
      assert.equal(existsSync(dataDir), false, 'nothing is created in the data dir');
    });
  }
});

test('a connection string refused for a password with an unescaped slash or at sign is printed without it', () => {
  for (const [name, url] of [
    ['DATABASE_URL', 'postgres://u:pa/ss@db.internal/labeldesk'],
    ['DATABASE_URL', 'postgres://u:p@ss@db.internal:port/labeldesk'],
    ['REDIS_URL', 'http://:pa/ss@cache.internal'],
  ] as const) {
    assert.throws(
      () => loadConfig({ [name]: url }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message.startsWith(`${name}: `) &&
        error.message.includes('***@') &&
        !error.message.includes('ss@') &&
        !error.message.includes('pa/'),
      `${name}=${url}`,
    );
  }
});
