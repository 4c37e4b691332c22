import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parses one allow-list entry: an IPv4 or IPv6 address, or a CIDR range of either. Throws on anything else. */
export function parseAllowEntry(entry: string): Range {
  const trimmed = entry.trim();
  if (trimmed.includes('/')) return ipaddr.parseCIDR(trimmed);
  if (!ipaddr.isValid(trimmed)) throw new Error(`"${entry}" is not an IP address or CIDR range`);
  const address = ipaddr.process(trimmed);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

/** Whether `address` (as Node reports it, IPv4-mapped IPv6 included) falls in any of the entries. */
export function addressAllowed(entries: readonly string[], address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  return entries.some((entry) => {
    const [range, bits] = parseAllowEntry(entry);
    return parsed.kind() === range.kind() && parsed.match(range, bits);
  });
}
