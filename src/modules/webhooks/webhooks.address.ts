import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Config } from '../../config.ts';
import { addressAllowed } from '../../lib/ip-allow-list.ts';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses (injected so tests can stand in for DNS). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The operating system's resolver (getaddrinfo), so /etc/hosts entries such as localhost count too. */
export const systemResolver: HostResolver = async (hostname) => {
  const found = await dns.lookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

export interface AddressPolicy {
  /** Lower-cased host names of BASE_URL and SHORT_LINK_BASE. */
  readonly ownHosts: readonly string[];
  /** Operator allow-list (Config.webhookAllowCidrs, already validated CIDR strings). */
  readonly allowCidrs: readonly string[];
}

/** Thrown with a one-line, user-facing reason, e.g. "127.0.0.1 is a loopback address". */
export class AddressRefused extends Error {
  override name = 'AddressRefused';
}

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** `kind` is the short word used inside other reasons; `description` completes "<address> is …". */
interface Refusal {
  kind: string;
  description: string;
}

/** URL host names carry IPv6 in brackets and may end in the root dot; neither changes the host. */
function normalizeHost(hostname: string): string {
  return hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

export function addressPolicy(
  config: Pick<Config, 'baseUrl' | 'shortLinkBase' | 'webhookAllowCidrs'>,
): AddressPolicy {
  const ownHosts = [config.baseUrl, config.shortLinkBase].map((base) =>
    normalizeHost(new URL(base).hostname),
  );
  return Object.freeze({
    ownHosts: Object.freeze([...new Set(ownHosts)]),
    allowCidrs: Object.freeze([...config.webhookAllowCidrs]),
  });
}

const METADATA_HOSTS = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.internal',
  'metadata.tencentyun.com',
  'metadata.packet.net',
]);

// 168.63.129.16 (Azure) is a public address, so no range check would catch it.
const METADATA_ADDRESSES = new Set(
  ['169.254.169.254', '169.254.170.2', 'fd00:ec2::254', '100.100.100.200', '168.63.129.16'].map((text) =>
    ipaddr.parse(text).toNormalizedString(),
  ),
);

const RANGE_PHRASES: Readonly<Record<string, string>> = {
  loopback: 'a loopback',
  private: 'a private',
  linkLocal: 'a link-local',
  carrierGradeNat: 'a carrier-grade NAT',
  multicast: 'a multicast',
  unspecified: 'an unspecified',
  broadcast: 'a broadcast',
  reserved: 'a reserved',
  uniqueLocal: 'a unique-local',
  discard: 'a discard-only',
  deprecatedSiteLocal: 'a site-local',
  benchmarking: 'a benchmarking',
  amt: 'an AMT relay',
  as112: 'an AS112',
  as112v6: 'an AS112',
  deprecatedOrchid: 'an ORCHID',
  orchid2: 'an ORCHID',
  droneRemoteIdProtocolEntityTags: 'a drone remote ID',
  segmentRouting: 'a segment-routing',
  // The well-known 64:ff9b::/96 is judged by its IPv4 address; this is what is left (64:ff9b:1::/48).
  rfc6052: 'a local-use NAT64',
};

function refusal(phrase: string): Refusal {
  return { kind: phrase.replace(/^an? /, ''), description: `${phrase} address` };
}

function fromWords(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

const WELL_KNOWN_NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

/** IPv6 forms that reach an IPv4 host, which is what has to be judged. */
function embeddedIPv4(address: ipaddr.IPv6): { form: string; ipv4: ipaddr.IPv4 } | null {
  const [, w1 = 0, w2 = 0, , , , w6 = 0, w7 = 0] = address.parts;
  switch (address.range()) {
    case 'ipv4Mapped':
      return { form: 'an IPv4-mapped', ipv4: address.toIPv4Address() };
    case 'rfc6145':
      return { form: 'an IPv4-translated', ipv4: fromWords(w6, w7) };
    case 'rfc6052':
      // Only the well-known /96 has a fixed place for the IPv4 address; local-use prefixes vary.
      return address.match(WELL_KNOWN_NAT64) ? { form: 'a NAT64', ipv4: fromWords(w6, w7) } : null;
    case '6to4':
      return { form: 'a 6to4', ipv4: fromWords(w1, w2) };
    case 'teredo':
      // The Teredo client address is stored inverted (RFC 4380), so it survives NATs that rewrite IPv4.
      return { form: 'a Teredo', ipv4: fromWords(w6 ^ 0xffff, w7 ^ 0xffff) };
    default:
      return null;
  }
}

function isMetadataAddress(address: Address): boolean {
  return METADATA_ADDRESSES.has(address.toNormalizedString());
}

const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/** ipaddr.js calls anything outside its special list unicast; outside 2000::/3 nothing is assigned for
 * global use, and the deprecated IPv4-compatible ::/96 (::7f00:1) lives there. */
function nonGlobalIPv6(address: Address): Refusal | null {
  if (!(address instanceof ipaddr.IPv6) || address.match(GLOBAL_UNICAST)) return null;
  return { kind: 'non-global', description: 'not a global unicast address' };
}

function judge(address: Address, policy: AddressPolicy): Refusal | null {
  // Checked before the allow-list: no operator range may open the way to cloud credentials.
  if (isMetadataAddress(address)) return refusal('a cloud metadata');
  if (address instanceof ipaddr.IPv6) {
    const embedded = embeddedIPv4(address);
    if (embedded) {
      const inner = judge(embedded.ipv4, policy);
      if (!inner) return null;
      return { kind: inner.kind, description: `${embedded.form} form of ${embedded.ipv4} (${inner.kind})` };
    }
  }
  if (addressAllowed(policy.allowCidrs, address.toString())) return null;
  const range = address.range();
  if (range !== 'unicast') return refusal(RANGE_PHRASES[range] ?? `a special-purpose (${range})`);
  return nonGlobalIPv6(address);
}

function judgeText(ip: string, policy: AddressPolicy): Refusal | null {
  if (!ipaddr.isValid(ip)) return { kind: 'invalid', description: 'not an IP address' };
  return judge(ipaddr.parse(ip), policy);
}

/** Why an IP address may not receive webhooks, or null when it may. */
export function refusalOf(ip: string, policy: AddressPolicy): string | null {
  const found = judgeText(ip, policy);
  return found ? `${ip} is ${found.description}` : null;
}

function parseUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new AddressRefused(`${url} is not a valid URL`);
  }
}

/** Checks that need no DNS; the URL parser has already turned decimal, octal and hex IPv4 into dotted form. */
export function checkUrlShape(url: string, policy: AddressPolicy): URL {
  const parsed = parseUrl(url);
  if (parsed.protocol !== 'https:') {
    throw new AddressRefused(`${parsed.protocol}//${parsed.host} is not https`);
  }
  if (parsed.username || parsed.password) {
    throw new AddressRefused(`https://${parsed.host} carries a user name or password`);
  }
  const host = normalizeHost(parsed.hostname);
  if (policy.ownHosts.includes(host)) throw new AddressRefused(`${host} is this service's own host`);
  if (METADATA_HOSTS.has(host)) throw new AddressRefused(`${host} is a cloud metadata host`);
  if (isIP(host) !== 0) {
    const reason = refusalOf(host, policy);
    if (reason) throw new AddressRefused(reason);
  }
  return parsed;
}

/** Every address must pass: the connection may go to any of them, and an attacker picks which. */
function assertAllAllowed(host: string, addresses: readonly ResolvedAddress[], policy: AddressPolicy): void {
  if (addresses.length === 0) throw new AddressRefused(`${host} resolves to no address`);
  for (const { address } of addresses) {
    const found = judgeText(address, policy);
    // The reason names the kind of address, not the address: a refused name must not become a way
    // to read the internal DNS.
    if (found) throw new AddressRefused(`${host} resolves to ${found.description}`);
  }
}

function literalAddress(host: string): ResolvedAddress[] | null {
  const family = isIP(host);
  return family === 0 ? null : [{ address: host, family: family === 6 ? 6 : 4 }];
}

/** checkUrlShape, then for host names: resolve, and refuse unless every address may receive webhooks. */
export async function assertDeliverableUrl(
  url: string,
  policy: AddressPolicy,
  resolve: HostResolver,
): Promise<URL> {
  const parsed = checkUrlShape(url, policy);
  const host = normalizeHost(parsed.hostname);
  if (isIP(host) !== 0) return parsed;
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolve(host);
  } catch {
    throw new AddressRefused(`${host} does not resolve`);
  }
  assertAllAllowed(host, addresses, policy);
  return parsed;
}

function wantedFamily(family: number | string | undefined): 4 | 6 | null {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return null;
}

/** Resolves once and checks; the addresses returned are the only ones the socket may use. */
async function checkedAddresses(
  host: string,
  family: 4 | 6 | null,
  policy: AddressPolicy,
  resolve: HostResolver,
): Promise<ResolvedAddress[]> {
  const addresses = literalAddress(host) ?? (await resolve(host));
  assertAllAllowed(host, addresses, policy);
  const usable = family ? addresses.filter((entry) => entry.family === family) : addresses;
  if (usable.length === 0) throw new AddressRefused(`${host} has no IPv${family} address`);
  return usable;
}

function toLookupAddress({ address, family }: ResolvedAddress): LookupAddress {
  return { address, family };
}

/**
 * A `lookup` for net/tls/https options. The socket connects to exactly the addresses checked here,
 * so DNS rebinding between a check and a second lookup has nothing to change. Resolver failures are
 * passed through unchanged: a DNS outage is a delivery failure worth retrying, not a refusal.
 */
export function guardedLookup(policy: AddressPolicy, resolve: HostResolver): LookupFunction {
  return (hostname, options, callback) => {
    const host = normalizeHost(hostname);
    checkedAddresses(host, wantedFamily(options.family), policy, resolve).then(
      (usable) => {
        const [first] = usable;
        if (options.all) callback(null, usable.map(toLookupAddress));
        else if (first) callback(null, first.address, first.family);
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), ''),
    );
  };
}
