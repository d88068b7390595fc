import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup as dnsLookupAsync } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Outbound requests a site makes for its users (webhooks, imports) must not reach the site's own
 * network: loopback, link-local (cloud metadata at 169.254.169.254), private, shared and
 * unspecified ranges. the application setting `allow_local_requests_from_web_hooks_and_services` lifts
 * that (its default: the config's allowLocalRequests). A DNS name is resolved once and the checked address is the one
 * connected to (no second lookup an attacker's DNS could answer differently).
 */
const LOCAL = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) LOCAL.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) LOCAL.addSubnet(net, prefix, 'ipv6');

export class LocalNetworkError extends Error {
  readonly code = 'ELOCALNETWORK';
}

/** The IPv4 address an IPv6 address embeds (IPv4-mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64), if any. */
function embeddedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1]!;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return null;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** Whether an IP address (v4 or v6) is in a range outbound requests may not reach by default. */
export function isLocalAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return LOCAL.check(bare, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(bare);
    return v4 !== null ? LOCAL.check(v4, 'ipv4') : LOCAL.check(bare, 'ipv6');
  }
  return true;
}

const refusal = (host: string, address: string) =>
  new LocalNetworkError(`Requests to the local network are not allowed (${host} is ${address})`);

/** The URL's host without IPv6 brackets. */
const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/**
 * Resolves the URL's host and checks every address: throws LocalNetworkError when any is local
 * (unless allowed), else answers the address to connect to. An IP literal is checked as is.
 */
export async function resolveOutboundAddress(url: URL, allowLocal: boolean): Promise<{ address: string; family: 4 | 6 }> {
  const host = hostOf(url);
  const literal = isIP(host);
  const addresses: LookupAddress[] = literal ? [{ address: host, family: literal }] : await dnsLookupAsync(host, { all: true, verbatim: true });
  if (!addresses.length) throw new Error(`${host}: no address`);
  if (!allowLocal) {
    const local = addresses.find((entry) => isLocalAddress(entry.address));
    if (local) throw refusal(host, local.address);
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/**
 * A `lookup` for net.connect (undici's connect options) that refuses local addresses: the socket
 * connects to exactly the address checked here. IP literals never reach a lookup, so callers
 * check those with assertOutboundUrl first.
 */
export function guardedLookup(allowLocal: () => boolean): typeof dnsLookup {
  const guarded = (hostname: string, options: unknown, callback: unknown) => {
    const done = (typeof options === 'function' ? options : callback) as (error: Error | null, address?: string | LookupAddress[], family?: number) => void;
    const opts = (typeof options === 'object' && options !== null ? options : {}) as { all?: boolean };
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) return done(error);
      const local = allowLocal() ? undefined : addresses.find((entry) => isLocalAddress(entry.address));
      if (local) return done(refusal(hostname, local.address));
      if (!addresses.length) return done(new Error(`${hostname}: no address`));
      if (opts.all) return done(null, addresses);
      return done(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
  return guarded as unknown as typeof dnsLookup;
}

/** Refuses an IP-literal URL host in a local range (unless allowed); DNS names are checked at connect time. */
export function assertOutboundUrl(url: URL, allowLocal: boolean): void {
  const host = hostOf(url);
  if (allowLocal) return;
  if (host === 'localhost' || host.endsWith('.localhost')) throw refusal(host, 'loopback');
  if (isIP(host) && isLocalAddress(host)) throw refusal(host, host);
}
