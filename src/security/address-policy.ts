/**
 * Which IP addresses an outbound request to a user-supplied URL may reach.
 *
 * Allow-list thinking: an IPv4 address is public unless it sits in a listed special range; an IPv6
 * address is public only inside global unicast 2000::/3 and outside the special ranges there. Forms
 * that carry an IPv4 address inside IPv6 (mapped, NAT64, 6to4, Teredo) are judged by that IPv4.
 */
import ipaddr from 'ipaddr.js';

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

const cidrs = (list: string[]): Cidr[] => list.map((c) => ipaddr.parseCIDR(c));

/** IPv4 ranges that are never reachable as "the public internet". */
const BLOCKED_V4 = cidrs([
  '0.0.0.0/8', // "this network", 0.0.0.0 reaches localhost on most systems
  '10.0.0.0/8', // private
  '100.64.0.0/10', // carrier-grade NAT
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local, cloud metadata (169.254.169.254)
  '172.16.0.0/12', // private
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // documentation TEST-NET-1
  '192.88.99.0/24', // deprecated 6to4 relay anycast
  '192.168.0.0/16', // private
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation TEST-NET-2
  '203.0.113.0/24', // documentation TEST-NET-3
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, includes 255.255.255.255 broadcast
]);

/** Special ranges inside 2000::/3 (everything outside 2000::/3 is refused anyway). */
const BLOCKED_V6_GLOBAL = cidrs([
  '2001:db8::/32', // documentation
  '2001:2::/48', // benchmarking
  '2001:10::/28', // deprecated ORCHID
  '2001:20::/28', // ORCHIDv2
  '3fff::/20', // documentation (RFC 9637)
]);

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16');
const TEREDO = ipaddr.parseCIDR('2001::/32');

const inAny = (addr: ipaddr.IPv4 | ipaddr.IPv6, list: Cidr[]) =>
  list.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net, bits));

const v4FromWords = (hi: number, lo: number) =>
  new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);

function isPublicV4(addr: ipaddr.IPv4): boolean {
  return !inAny(addr, BLOCKED_V4);
}

function isPublicV6(addr: ipaddr.IPv6): boolean {
  const p = addr.parts;
  // ::ffff:a.b.c.d reaches the IPv4 host directly on dual-stack sockets.
  if (addr.isIPv4MappedAddress()) return isPublicV4(addr.toIPv4Address());
  // NAT64 translates to the embedded IPv4 (RFC 6052); judge that one.
  if (addr.match(NAT64_WELL_KNOWN)) return isPublicV4(v4FromWords(p[6], p[7]));
  if (!addr.match(GLOBAL_UNICAST_V6)) return false; // loopback, ::, fc00::/7, fe80::/10, ff00::/8, ...
  if (inAny(addr, BLOCKED_V6_GLOBAL)) return false;
  // 6to4 carries the IPv4 of its gateway in bits 16..48.
  if (addr.match(SIX_TO_FOUR)) return isPublicV4(v4FromWords(p[1], p[2]));
  // Teredo: server IPv4 in bits 32..64, client IPv4 (bit-inverted) in the last 32 bits.
  if (addr.match(TEREDO)) {
    return isPublicV4(v4FromWords(p[2], p[3])) && isPublicV4(v4FromWords(p[6] ^ 0xffff, p[7] ^ 0xffff));
  }
  return true;
}

/**
 * True when `ip` is a public unicast address that an outbound request may reach.
 * Anything that does not parse as a plain IP literal is refused (false), never guessed at.
 */
export function isPublicAddress(ip: string): boolean {
  const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return isPublicV4(ipaddr.IPv4.parse(text));
  if (text.includes('%')) return false; // a zone id (fe80::1%eth0) means a link-local scope
  if (ipaddr.IPv6.isValid(text)) return isPublicV6(ipaddr.IPv6.parse(text));
  return false;
}
