/**
 * The undici connector behind every guarded request: resolve the name once, check every answer,
 * then open the socket to exactly that checked address. There is no second lookup, so a DNS
 * answer that changes between check and connect (rebinding) cannot redirect the connection.
 * TLS still uses the hostname for SNI and certificate checks.
 */
import net from 'node:net';
import tls from 'node:tls';
import { promises as dns } from 'node:dns';
import { buildConnector } from 'undici';
import { isPublicAddress } from './address-policy.js';
import { blockedAddress, OutboundError } from './outbound-error.js';

export type ResolvedAddress = { address: string; family: 4 | 6 };
/** Resolves a hostname to addresses (tests inject one; the default asks the system resolver). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;
/** What is about to be connected to: the checked address and the name it came from. */
export type ConnectTarget = { hostname: string; address: string; family: 4 | 6; port: number; protocol: 'http:' | 'https:' };

export interface GuardedConnectorOptions {
  allowPrivateNetwork: boolean;
  lookup?: Resolver;
  /** Refuse plain http: on every hop (production mode for webhooks). */
  httpsOnly?: boolean;
  /** Called with the checked address just before its socket opens; throwing cancels the connection. */
  beforeConnect?: (target: ConnectTarget) => void;
  connectTimeoutMs?: number;
  /** Extra CA certificates (PEM) to trust, e.g. an intranet CA; the system roots stay trusted. */
  tlsCa?: string | Buffer | Array<string | Buffer>;
  /** Test hook only: replaces isPublicAddress so loopback can stand in for "the internet". */
  isPublic?: (ip: string) => boolean;
}

export const systemResolver: Resolver = async (hostname) => {
  const list = await dns.lookup(hostname, { all: true, verbatim: true });
  return list.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** Hostname as the resolver and the policy see it: no brackets, no trailing dot, lower case. */
export function bareHost(hostname: string): string {
  let h = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (h.endsWith('.')) h = h.slice(0, -1);
  return h.toLowerCase();
}

/** Resolves `hostname` and returns its addresses, refusing all of them if any one is not public. */
export async function resolveChecked(hostname: string, opts: Pick<GuardedConnectorOptions, 'allowPrivateNetwork' | 'lookup' | 'isPublic'>): Promise<ResolvedAddress[]> {
  const host = bareHost(hostname);
  const isPublic = opts.isPublic ?? isPublicAddress;
  const literal = net.isIP(host);
  if (literal) {
    if (!opts.allowPrivateNetwork && !isPublic(host)) throw blockedAddress(`address ${host}`);
    return [{ address: host, family: literal === 6 ? 6 : 4 }];
  }
  let list: ResolvedAddress[];
  try {
    list = await (opts.lookup ?? systemResolver)(host);
  } catch (err) {
    throw new OutboundError('dns_failed', `could not resolve ${host}`, { cause: err });
  }
  // A non-IP answer would make net.connect look the name up again, defeating the pin.
  list = list.filter((a) => net.isIP(a.address) !== 0);
  if (list.length === 0) throw new OutboundError('dns_failed', `${host} has no usable address`);
  // One bad answer refuses the name: which answer gets used must never decide safety.
  if (!opts.allowPrivateNetwork && list.some((a) => !isPublic(a.address))) throw blockedAddress(`${host} resolves to an address that`);
  return list;
}

// Errors after which trying the next resolved address makes sense (not TLS or policy errors).
const RETRY_NEXT = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'EADDRNOTAVAIL']);

export function createGuardedConnector(opts: GuardedConnectorOptions): buildConnector.connector {
  const ca = opts.tlsCa === undefined ? undefined : [...tls.rootCertificates, ...[opts.tlsCa].flat()];
  const base = buildConnector({ timeout: opts.connectTimeoutMs ?? 10_000, ...(ca ? { ca } : {}) });
  return (options, callback) => {
    const protocol = options.protocol === 'https:' ? 'https:' : 'http:';
    const host = bareHost(options.hostname);
    if (opts.httpsOnly && protocol !== 'https:') {
      callback(new OutboundError('invalid_url', `plain http to ${host} is refused; use https`), null);
      return;
    }
    const port = Number(options.port) || (protocol === 'https:' ? 443 : 80);
    const tryAt = (list: ResolvedAddress[], i: number) => {
      const target = list[i];
      try {
        opts.beforeConnect?.({ hostname: host, address: target.address, family: target.family, port, protocol });
      } catch (err) {
        callback(err instanceof Error ? err : new Error(String(err)), null);
        return;
      }
      const servername = protocol === 'https:' && !net.isIP(host) ? host : undefined;
      base({ ...options, hostname: target.address, servername }, (...args) => {
        const err = args[0];
        const code = (err as { code?: string } | null)?.code;
        if (err && i + 1 < list.length && code && RETRY_NEXT.has(code)) tryAt(list, i + 1);
        else callback(...args);
      });
    };
    resolveChecked(host, opts).then(
      (list) => tryAt(list, 0),
      (err: Error) => callback(err, null),
    );
  };
}

/**
 * A `lookup` for sockets the undici connector does not open (provider WebSockets through `ws`): the name is
 * resolved and checked once, and the socket connects to the checked address. `net` skips lookup for IP
 * literals, so callers check those first with `checkLiteralHost`.
 */
export function guardedLookup(opts: Pick<GuardedConnectorOptions, 'allowPrivateNetwork' | 'lookup' | 'isPublic'>) {
  return (hostname: string, options: { all?: boolean } | number | undefined, callback: (...args: any[]) => void): void => {
    resolveChecked(hostname, opts).then(
      (list) => {
        if (typeof options === 'object' && options?.all) callback(null, list);
        else callback(null, list[0].address, list[0].family);
      },
      (err: Error) => callback(err),
    );
  };
}

/** Refuses a URL whose host is an IP literal outside the policy (names are checked by guardedLookup). */
export function checkLiteralHost(url: URL, opts: Pick<GuardedConnectorOptions, 'allowPrivateNetwork' | 'isPublic'>): void {
  const host = bareHost(url.hostname);
  if (net.isIP(host) && !opts.allowPrivateNetwork && !(opts.isPublic ?? isPublicAddress)(host)) throw blockedAddress(`address ${host}`);
}
