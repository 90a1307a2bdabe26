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
 * (one bad record is enough for a rebinding attack) or if nothing resolves. The error never says what the host
 * resolved to, nor whether it resolved at all: a partner must not be able to map internal names through it.
 */
export async function resolveSafely(hostname: string): Promise<ResolvedAddress[]> {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  const refused = new ForbiddenTargetError(`${host} is not a public address`);
  if (isIP(host)) {
    if (isForbiddenAddress(host)) throw refused;
    return [{ address: host, family: isIP(host) }];
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await dnsLookup(host, { all: true, verbatim: true });
  } catch {
    throw refused;
  }
  if (!addresses.length || addresses.some((a) => isForbiddenAddress(a.address))) throw refused;
  return addresses;
}

/** Ports of services that live inside networks (databases, caches, queues, orchestration) and never take webhooks. */
const INTERNAL_SERVICE_PORTS = new Set([
  2375,
  2376, // Docker API
  2379,
  2380, // etcd
  3306, // MySQL
  5432, // PostgreSQL
  5672, // AMQP
  5984, // CouchDB
  6379, // Redis
  6443, // Kubernetes API
  8500, // Consul
  9042, // Cassandra
  9092, // Kafka
  9200,
  9300, // Elasticsearch
  10250,
  10255, // kubelet
  11211, // memcached
  27017, // MongoDB
]);

/** Webhook port policy: 80 and 443, or an unprivileged port (1024–65535) that is not a known internal service's. */
export function isAllowedWebhookPort(url: URL): boolean {
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  if (port === 80 || port === 443) return true;
  return port >= 1024 && port <= 65535 && !INTERNAL_SERVICE_PORTS.has(port);
}
