import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { test } from 'node:test';
import {
  AddressRefused,
  addressPolicy,
  assertDeliverableUrl,
  checkUrlShape,
  guardedLookup,
  type HostResolver,
  type ResolvedAddress,
  refusalOf,
  systemResolver,
} from '../../src/modules/webhooks/webhooks.address.ts';

const CONFIG = { baseUrl: 'https://api.labeldesk.test', shortLinkBase: 'https://lbl.test/l' };
const policy = addressPolicy({ ...CONFIG, webhookAllowCidrs: [] });
const allowing127 = addressPolicy({ ...CONFIG, webhookAllowCidrs: ['127.0.0.0/8', '169.254.0.0/16'] });

/** A resolver that fails the test if called: IP literals must be judged without DNS. */
const noDns: HostResolver = async (hostname) => {
  throw new Error(`unexpected DNS lookup of ${hostname}`);
};

/** Stands in for DNS and counts how often it is asked. */
function fakeResolver(table: Record<string, string[]>): HostResolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: net.isIP(address) === 6 ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

async function refusedWith(promise: Promise<unknown>, reason: string | RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AddressRefused, `expected AddressRefused, got ${String(error)}`);
    if (typeof reason === 'string') assert.equal(error.message, reason);
    else assert.match(error.message, reason);
    return true;
  });
}

const REFUSED: ReadonlyArray<[string, string]> = [
  ['http://example.com/hook', 'http://example.com is not https'],
  ['ftp://example.com/', 'ftp://example.com is not https'],
  ['https://user:pass@example.com/', 'https://example.com carries a user name or password'],
  ['https://api.labeldesk.test/hooks', "api.labeldesk.test is this service's own host"],
  ['https://API.labeldesk.test.:8443/', "api.labeldesk.test is this service's own host"],
  ['https://lbl.test/l/abc', "lbl.test is this service's own host"],
  ['https://2130706433/', '127.0.0.1 is a loopback address'],
  ['https://0177.0.0.1/', '127.0.0.1 is a loopback address'],
  ['https://0x7f000001/', '127.0.0.1 is a loopback address'],
  ['https://0x7f.1/', '127.0.0.1 is a loopback address'],
  ['https://127.0.0.1:8443/', '127.0.0.1 is a loopback address'],
  ['https://[::1]/', '::1 is a loopback address'],
  ['https://[::ffff:127.0.0.1]/', '::ffff:7f00:1 is an IPv4-mapped form of 127.0.0.1 (loopback)'],
  ['https://[::ffff:7f00:1]/', '::ffff:7f00:1 is an IPv4-mapped form of 127.0.0.1 (loopback)'],
  ['https://[::ffff:0:7f00:1]/', '::ffff:0:7f00:1 is an IPv4-translated form of 127.0.0.1 (loopback)'],
  ['https://[64:ff9b::a00:1]/', '64:ff9b::a00:1 is a NAT64 form of 10.0.0.1 (private)'],
  ['https://[64:ff9b:1::1]/', '64:ff9b:1::1 is a local-use NAT64 address'],
  ['https://[2002:a00:1::]/', '2002:a00:1:: is a 6to4 form of 10.0.0.1 (private)'],
  [
    'https://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/',
    '2001:0:4136:e378:8000:63bf:f5ff:fffe is a Teredo form of 10.0.0.1 (private)',
  ],
  ['https://[::7f00:1]/', '::7f00:1 is not a global unicast address'],
  ['https://10.1.2.3/', '10.1.2.3 is a private address'],
  ['https://172.16.0.1/', '172.16.0.1 is a private address'],
  ['https://172.31.255.254/', '172.31.255.254 is a private address'],
  ['https://192.168.1.1/', '192.168.1.1 is a private address'],
  ['https://100.64.0.1/', '100.64.0.1 is a carrier-grade NAT address'],
  ['https://169.254.1.1/', '169.254.1.1 is a link-local address'],
  ['https://0.0.0.0/', '0.0.0.0 is an unspecified address'],
  ['https://224.0.0.1/', '224.0.0.1 is a multicast address'],
  ['https://239.255.255.250/', '239.255.255.250 is a multicast address'],
  ['https://255.255.255.255/', '255.255.255.255 is a broadcast address'],
  ['https://192.0.2.1/', '192.0.2.1 is a reserved address'],
  ['https://198.18.0.1/', '198.18.0.1 is a reserved address'],
  ['https://240.0.0.1/', '240.0.0.1 is a reserved address'],
  ['https://[fc00::1]/', 'fc00::1 is a unique-local address'],
  ['https://[fd12:3456::1]/', 'fd12:3456::1 is a unique-local address'],
  ['https://[fe80::1]/', 'fe80::1 is a link-local address'],
  ['https://[ff02::1]/', 'ff02::1 is a multicast address'],
  ['https://[::]/', ':: is an unspecified address'],
  ['https://[100::1]/', '100::1 is a discard-only address'],
  ['https://169.254.169.254/latest/meta-data/', '169.254.169.254 is a cloud metadata address'],
  ['https://169.254.170.2/', '169.254.170.2 is a cloud metadata address'],
  ['https://[fd00:ec2::254]/', 'fd00:ec2::254 is a cloud metadata address'],
  ['https://100.100.100.200/', '100.100.100.200 is a cloud metadata address'],
  ['https://168.63.129.16/', '168.63.129.16 is a cloud metadata address'],
  [
    'https://[::ffff:169.254.169.254]/',
    '::ffff:a9fe:a9fe is an IPv4-mapped form of 169.254.169.254 (cloud metadata)',
  ],
  ['https://metadata.google.internal/', 'metadata.google.internal is a cloud metadata host'],
  ['https://Metadata.Google.Internal./', 'metadata.google.internal is a cloud metadata host'],
  ['https://metadata.goog/', 'metadata.goog is a cloud metadata host'],
  ['https://metadata/', 'metadata is a cloud metadata host'],
  ['https://instance-data/', 'instance-data is a cloud metadata host'],
  ['https://instance-data.ec2.internal/', 'instance-data.ec2.internal is a cloud metadata host'],
  ['https://metadata.azure.internal/', 'metadata.azure.internal is a cloud metadata host'],
  ['https://metadata.tencentyun.com/', 'metadata.tencentyun.com is a cloud metadata host'],
  ['https://metadata.packet.net/', 'metadata.packet.net is a cloud metadata host'],
  ['not a url', 'not a url is not a valid URL'],
];

test('every refused form is refused before any DNS lookup, with a reason naming it', async () => {
  for (const [url, reason] of REFUSED) {
    assert.throws(() => checkUrlShape(url, policy), { name: 'AddressRefused', message: reason }, url);
    await refusedWith(assertDeliverableUrl(url, policy, noDns), reason);
  }
});

test('public addresses pass', async () => {
  for (const url of ['https://8.8.8.8/hook', 'https://[2606:4700::1]/', 'https://[::ffff:8.8.8.8]/']) {
    const parsed = await assertDeliverableUrl(url, policy, noDns);
    assert.equal(parsed.href, new URL(url).href);
  }
  const resolve = fakeResolver({
    'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  });
  const parsed = await assertDeliverableUrl('https://hooks.example.com:8443/in', policy, resolve);
  assert.equal(parsed.host, 'hooks.example.com:8443');
  assert.deepEqual(resolve.calls, ['hooks.example.com']);
});

test('refusalOf judges bare addresses and the IPv4 inside IPv6 forms', () => {
  assert.equal(refusalOf('8.8.8.8', policy), null);
  assert.equal(refusalOf('::ffff:8.8.8.8', policy), null);
  assert.equal(refusalOf('64:ff9b::808:808', policy), null);
  assert.equal(refusalOf('2002:808:808::1', policy), null);
  assert.equal(refusalOf('127.0.0.1', policy), '127.0.0.1 is a loopback address');
  assert.equal(refusalOf('example.com', policy), 'example.com is not an IP address');
});

test('WEBHOOK_ALLOW_CIDRS lets chosen ranges through, but never a cloud metadata address', async () => {
  assert.equal(refusalOf('127.0.0.1', allowing127), null);
  assert.equal(refusalOf('::ffff:127.0.0.1', allowing127), null);
  assert.equal(refusalOf('169.254.1.1', allowing127), null);
  await assertDeliverableUrl('https://127.0.0.1:8443/', allowing127, noDns);
  assert.equal(refusalOf('169.254.169.254', allowing127), '169.254.169.254 is a cloud metadata address');
  await refusedWith(
    assertDeliverableUrl('https://[::ffff:169.254.169.254]/', allowing127, noDns),
    '::ffff:a9fe:a9fe is an IPv4-mapped form of 169.254.169.254 (cloud metadata)',
  );
  await refusedWith(
    assertDeliverableUrl('https://10.0.0.1/', allowing127, noDns),
    '10.0.0.1 is a private address',
  );
});

test('addressPolicy takes the own hosts from BASE_URL and SHORT_LINK_BASE', () => {
  assert.deepEqual(addressPolicy({ ...CONFIG, webhookAllowCidrs: [] }).ownHosts, [
    'api.labeldesk.test',
    'lbl.test',
  ]);
  const same = addressPolicy({
    baseUrl: 'https://[2001:db8::1]:8443',
    shortLinkBase: 'https://[2001:db8::1]:8443/l',
    webhookAllowCidrs: [],
  });
  assert.deepEqual(same.ownHosts, ['2001:db8::1']);
});

test('localhost is refused because it resolves to loopback (real resolver)', async () => {
  await refusedWith(
    assertDeliverableUrl('https://localhost:9/', policy, systemResolver),
    'localhost resolves to a loopback address',
  );
});

test('a name is refused when any one of its addresses is refused', async () => {
  const resolve = fakeResolver({ 'mixed.example': ['93.184.215.14', '10.0.0.1'] });
  await refusedWith(
    assertDeliverableUrl('https://mixed.example/', policy, resolve),
    'mixed.example resolves to a private address',
  );
  const mapped = fakeResolver({ 'sneaky.example': ['::ffff:7f00:1'] });
  await refusedWith(
    assertDeliverableUrl('https://sneaky.example/', policy, mapped),
    'sneaky.example resolves to an IPv4-mapped form of 127.0.0.1 (loopback)',
  );
});

test('a name that does not resolve, or resolves to nothing, is refused', async () => {
  const resolve = fakeResolver({ 'empty.example': [] });
  await refusedWith(
    assertDeliverableUrl('https://missing.example/', policy, resolve),
    'missing.example does not resolve',
  );
  await refusedWith(
    assertDeliverableUrl('https://empty.example/', policy, resolve),
    'empty.example resolves to no address',
  );
});

/** A TCP server on 127.0.0.1 standing in for a webhook receiver. */
async function receiver(t: { after: (fn: () => void) => void }): Promise<number> {
  const server = net.createServer((socket) => socket.end());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => server.close());
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  return address.port;
}

async function connectThrough(port: number, lookup: net.LookupFunction, autoSelectFamily: boolean) {
  const socket = net.connect({ host: 'receiver.test', port, lookup, autoSelectFamily });
  try {
    await once(socket, 'connect');
    return socket.remoteAddress;
  } finally {
    socket.destroy();
  }
}

test('guardedLookup connects to the checked address, asking DNS once per connection', async (t) => {
  const port = await receiver(t);
  for (const autoSelectFamily of [true, false]) {
    const resolve = fakeResolver({ 'receiver.test': ['127.0.0.1'] });
    const remote = await connectThrough(port, guardedLookup(allowing127, resolve), autoSelectFamily);
    assert.equal(remote, '127.0.0.1');
    assert.deepEqual(resolve.calls, ['receiver.test'], `autoSelectFamily: ${autoSelectFamily}`);
  }
});

test('guardedLookup makes the connection fail with AddressRefused for a refused address', async (t) => {
  const port = await receiver(t);
  for (const autoSelectFamily of [true, false]) {
    const resolve = fakeResolver({ 'receiver.test': ['127.0.0.1'] });
    await refusedWith(
      connectThrough(port, guardedLookup(policy, resolve), autoSelectFamily),
      'receiver.test resolves to a loopback address',
    );
    assert.deepEqual(resolve.calls, ['receiver.test']);
  }
});

test('guardedLookup answers both callback shapes and honours a requested family', async () => {
  const resolve = fakeResolver({ 'dual.example': ['2606:4700::1', '93.184.215.14'] });
  const lookup = guardedLookup(policy, resolve);
  const ask = (options: { all?: boolean; family?: number }) =>
    new Promise<unknown[]>((done) => lookup('dual.example', options, (...args) => done(args)));

  assert.deepEqual(await ask({ all: true }), [
    null,
    [
      { address: '2606:4700::1', family: 6 },
      { address: '93.184.215.14', family: 4 },
    ],
  ]);
  assert.deepEqual(await ask({}), [null, '2606:4700::1', 6]);
  assert.deepEqual(await ask({ family: 4 }), [null, '93.184.215.14', 4]);
  assert.deepEqual(await ask({ all: true, family: 4 }), [null, [{ address: '93.184.215.14', family: 4 }]]);
  assert.equal(resolve.calls.length, 4);
});

test('guardedLookup passes resolver failures through unchanged, so deliveries can retry', async () => {
  const lookup = guardedLookup(policy, fakeResolver({}));
  const [error] = await new Promise<unknown[]>((done) => lookup('gone.example', {}, (...args) => done(args)));
  assert.ok(error instanceof Error);
  assert.ok(!(error instanceof AddressRefused));
  assert.equal((error as NodeJS.ErrnoException).code, 'ENOTFOUND');
});
