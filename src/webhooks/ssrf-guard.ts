import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Address ranges a webhook must never reach: the platform's own network, cloud metadata, and special-purpose ranges. */
// Two lists: a BlockList matches IPv4 addresses against IPv6 rules too (as ::ffff:a.b.c.d), which the mapped rule would catch.
const BLOCKED_V4 = new BlockList();
const BLOCKED_V6 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, incl. 169.254.169.254 metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  BLOCKED_V4.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 96], // IPv4-compatible
  ['::ffff:0:0', 96], // IPv4-mapped
  ['64:ff9b::', 96], // NAT64
  ['64:ff9b:1::', 48],
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (embeds IPv4)
  ['fc00::', 7], // unique-local, incl. fd00:ec2::254 metadata
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  BLOCKED_V6.addSubnet(net, prefix, 'ipv6');
}

/** True when `ip` (a literal IPv4 or IPv6 address) is in a range webhooks may not target. */
export function isForbiddenAddress(ip: string): boolean {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const family = isIP(bare);
  if (family === 4) return BLOCKED_V4.check(bare, 'ipv4');
  if (family === 6) return BLOCKED_V6.check(bare.split('%')[0], 'ipv6');
  return true; // not an address: refuse rather than guess
}

export class ForbiddenTargetError extends Error {}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/**
 * Resolves a host and checks every address it resolves to; throws ForbiddenTargetError if any is forbidden
 * (one bad record is enough for a rebinding attack) or if nothing resolves.
 */
export async function resolveSafely(hostname: string): Promise<ResolvedAddress[]> {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (isIP(host)) {
    if (isForbiddenAddress(host)) throw new ForbiddenTargetError(`${host} is a private or reserved address`);
    return [{ address: host, family: isIP(host) }];
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await dnsLookup(host, { all: true, verbatim: true });
  } catch {
    throw new ForbiddenTargetError(`${host} does not resolve`);
  }
  if (!addresses.length) throw new ForbiddenTargetError(`${host} does not resolve`);
  const bad = addresses.find((a) => isForbiddenAddress(a.address));
  if (bad) throw new ForbiddenTargetError(`${host} resolves to a private or reserved address (${bad.address})`);
  return addresses;
}
