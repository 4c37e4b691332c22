import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addressAllowed, addressBucket, parseAllowEntry } from '../../src/lib/ip-allow-list.ts';

/** The entry as the address family, address and prefix length it was parsed to. */
function parsed(entry: string): [string, string, number] {
  const [address, bits] = parseAllowEntry(entry);
  return [address.kind(), address.toString(), bits];
}

test('an address alone is a range of one: /32 for IPv4, /128 for IPv6', () => {
  assert.deepEqual(parsed('203.0.113.7'), ['ipv4', '203.0.113.7', 32]);
  assert.deepEqual(parsed('2001:db8::1'), ['ipv6', '2001:db8::1', 128]);
  assert.deepEqual(parsed('  203.0.113.7 '), ['ipv4', '203.0.113.7', 32]);
});

test('a CIDR range keeps its prefix length, from 0 to the family width', () => {
  assert.deepEqual(parsed('10.0.0.0/8'), ['ipv4', '10.0.0.0', 8]);
  assert.deepEqual(parsed('0.0.0.0/0'), ['ipv4', '0.0.0.0', 0]);
  assert.deepEqual(parsed('203.0.113.7/32'), ['ipv4', '203.0.113.7', 32]);
  assert.deepEqual(parsed('2001:db8::/32'), ['ipv6', '2001:db8::', 32]);
  assert.deepEqual(parsed('::/0'), ['ipv6', '::', 0]);
  assert.deepEqual(parsed('2001:db8::1/128'), ['ipv6', '2001:db8::1', 128]);
});

test('an IPv4-mapped IPv6 entry is the IPv4 address or range it carries', () => {
  assert.deepEqual(parsed('::ffff:10.0.0.1'), ['ipv4', '10.0.0.1', 32]);
  assert.deepEqual(parsed('::ffff:10.0.0.0/104'), ['ipv4', '10.0.0.0', 8]);
  assert.deepEqual(parsed('::ffff:10.0.0.0/96'), ['ipv4', '10.0.0.0', 0]);
  assert.deepEqual(parsed('::ffff:10.0.0.1/128'), ['ipv4', '10.0.0.1', 32]);
});

test('octal, hex and shortened IPv4 forms are refused, not read as some other address', () => {
  for (const entry of ['010.0.0.1', '0x0a.0.0.1', '0xa000001', '10.1', '10', '167772161', '10.0.0.1.']) {
    assert.throws(() => parseAllowEntry(entry), /is not an IP address or CIDR range/, entry);
  }
});

test('names, empty text and extra slashes are refused', () => {
  for (const entry of [
    '',
    ' ',
    'localhost',
    'example.com',
    '10.0.0.0/8/8',
    '/8',
    '2001:db8::/32/1',
    '256.0.0.1',
  ]) {
    assert.throws(() => parseAllowEntry(entry), /is not an IP address or CIDR range/, JSON.stringify(entry));
  }
});

test('a prefix length outside the family width, or not a plain number, is refused', () => {
  for (const entry of [
    '10.0.0.0/33',
    '10.0.0.0/',
    '10.0.0.0/-1',
    '10.0.0.0/+8',
    '10.0.0.0/8.0',
    '10.0.0.0/1000',
    '10.0.0.0/a',
    '2001:db8::/129',
    '::ffff:10.0.0.0/95',
    '::ffff:10.0.0.0/129',
  ]) {
    assert.throws(() => parseAllowEntry(entry), /has an invalid prefix length/, entry);
  }
});

test('an address is allowed when it is listed or falls in a listed range', () => {
  const entries = ['203.0.113.7', '198.51.100.0/24', '2001:db8::1', '2001:db8:1::/48'];
  for (const address of [
    '203.0.113.7',
    '198.51.100.0',
    '198.51.100.255',
    '2001:db8::1',
    '2001:db8:1:ffff::9',
  ]) {
    assert.ok(addressAllowed(entries, address), address);
  }
  for (const address of ['203.0.113.8', '198.51.101.1', '2001:db8::2', '2001:db8:2::1', '127.0.0.1', '::1']) {
    assert.ok(!addressAllowed(entries, address), address);
  }
});

test('a range matches on its prefix only: host bits written into the entry do not narrow it', () => {
  assert.ok(addressAllowed(['10.1.2.3/8'], '10.200.0.1'));
  assert.ok(!addressAllowed(['10.1.2.3/8'], '11.1.2.3'));
});

test('an IPv4-mapped client address is matched as the IPv4 address it carries, both ways', () => {
  assert.ok(addressAllowed(['10.0.0.0/8'], '::ffff:10.1.2.3'));
  assert.ok(!addressAllowed(['10.0.0.0/8'], '::ffff:11.1.2.3'));
  assert.ok(addressAllowed(['::ffff:10.0.0.0/104'], '10.1.2.3'));
  assert.ok(addressAllowed(['::ffff:10.0.0.0/104'], '::ffff:10.1.2.3'));
  assert.ok(!addressAllowed(['::ffff:10.0.0.0/104'], '11.1.2.3'));
});

test('a range of one family never admits an address of the other', () => {
  assert.ok(addressAllowed(['0.0.0.0/0'], '192.0.2.1'));
  assert.ok(!addressAllowed(['0.0.0.0/0'], '2001:db8::1'));
  assert.ok(addressAllowed(['::/0'], '2001:db8::1'));
  assert.ok(!addressAllowed(['::/0'], '192.0.2.1'));
  assert.ok(!addressAllowed(['::/0'], '::ffff:192.0.2.1'));
});

test('an empty list, or a client address that is no IP address, allows nothing', () => {
  assert.ok(!addressAllowed([], '203.0.113.7'));
  for (const address of ['', 'unknown', '203.0.113.7:443', '010.0.0.1']) {
    assert.ok(!addressAllowed(['0.0.0.0/0', '::/0'], address), JSON.stringify(address));
  }
});

test('an IPv4 client counts alone, mapped or not', () => {
  assert.equal(addressBucket('203.0.113.7'), '203.0.113.7');
  assert.equal(addressBucket('::ffff:203.0.113.7'), '203.0.113.7');
});

test('an IPv6 client counts in its /64, written the same however the address was', () => {
  assert.equal(addressBucket('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
  assert.equal(addressBucket('2001:0DB8:0001:0002:ffff::1'), '2001:db8:1:2::/64');
  assert.equal(addressBucket('2001:db8::1'), '2001:db8:0:0::/64');
  assert.notEqual(addressBucket('2001:db8:1:2::1'), addressBucket('2001:db8:1:3::1'));
});

test('a client address that is no IP address is its own bucket', () => {
  assert.equal(addressBucket('unknown'), 'unknown');
  assert.equal(addressBucket(''), '');
});
