import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { remembered } from './remembered.ts';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

/** IPv4-mapped IPv6 (`::ffff:10.0.0.1`) is the IPv4 address it carries. */
function unmapped(address: Address): { address: Address; mapped: boolean } {
  if (address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress()) {
    return { address: address.toIPv4Address(), mapped: true };
  }
  return { address, mapped: false };
}

/**
 * Parses one allow-list entry: an IPv4 address in dotted decimal, an IPv6 address, or a CIDR range
 * of either. Octal, hex and shortened IPv4 forms are refused: `010.0.0.1` would otherwise mean
 * 8.0.0.1, the opposite of what an operator who wrote it meant.
 */
export function parseAllowEntry(entry: string): Range {
  const [text, bitsText, ...rest] = entry.trim().split('/');
  if (text === undefined || rest.length > 0 || isIP(text) === 0) {
    throw new Error(`"${entry}" is not an IP address or CIDR range`);
  }
  const { address, mapped } = unmapped(ipaddr.parse(text));
  const max = address.kind() === 'ipv4' ? 32 : 128;
  if (bitsText === undefined) return [address, max];
  if (!/^\d{1,3}$/.test(bitsText)) throw new Error(`"${entry}" has an invalid prefix length`);
  const bits = Number(bitsText) - (mapped ? 96 : 0);
  if (bits < 0 || bits > max) throw new Error(`"${entry}" has an invalid prefix length`);
  return [address, bits];
}

/** Whether `address` (as Node reports it, IPv4-mapped IPv6 included) falls in any of the entries. */
export function addressAllowed(entries: readonly string[], address: string): boolean {
  if (isIP(address) === 0) return false;
  const client = unmapped(ipaddr.parse(address)).address;
  return entries.some((entry) => {
    const [range, bits] = parseAllowEntry(entry);
    return client.kind() === range.kind() && client.match(range, bits);
  });
}

/**
 * The ranges as a predicate on addresses as Node reports them (an IPv4-mapped IPv6 address is the
 * IPv4 address it carries); always false without ranges. Answers are remembered: it runs on every
 * request, and the peers it is asked about (the proxies) are few.
 */
export function rangeMatcher(ranges: readonly string[] | null): (address: string | undefined) => boolean {
  if (ranges === null) return () => false;
  const parsed = ranges.map(parseAllowEntry);
  const matches = remembered(1000, (address) => {
    if (isIP(address) === 0) return false;
    const peer = ipaddr.process(address);
    return parsed.some(([range, bits]) => peer.kind() === range.kind() && peer.match(range, bits));
  });
  return (address) => address !== undefined && matches(address);
}

/**
 * The bucket an address's per-address limits count in: the address itself for IPv4, its /64 for
 * IPv6, since one IPv6 client usually holds a whole /64 and could rotate through it.
 */
export function addressBucket(address: string): string {
  if (isIP(address) === 0) return address;
  const client = unmapped(ipaddr.parse(address)).address;
  if (!(client instanceof ipaddr.IPv6)) return client.toString();
  const parts = client.parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(':')}::/64`;
}
