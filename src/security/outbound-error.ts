/** Local error of the guarded outbound client. Messages name the host, never headers, bodies or query strings. */
export type OutboundErrorCode =
  | 'blocked_address'
  | 'invalid_url'
  | 'timeout'
  | 'too_many_redirects'
  | 'too_large'
  | 'connect_failed'
  | 'dns_failed';

export class OutboundError extends Error {
  constructor(
    readonly code: OutboundErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OutboundError';
  }
}

export const isOutboundError = (err: unknown): err is OutboundError => err instanceof OutboundError;

/**
 * The refusal of an address outside the public internet. It says how to allow it, because the common case is an
 * operator's own service (Ollama on localhost, an intranet API) rather than an attack.
 */
export function blockedAddress(what: string): OutboundError {
  return new OutboundError(
    'blocked_address',
    `${what} is not on the public internet (private, loopback, link-local and reserved addresses are refused); ` +
      "if this server should reach private addresses (a model server on this machine, an intranet service), set ALLOW_PRIVATE_NETWORK=true in the server's environment and restart it",
  );
}

/** Finds an OutboundError wrapped by undici or fetch (`TypeError('fetch failed', { cause })`). */
export function findOutboundError(err: unknown): OutboundError | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof OutboundError) return e;
  }
  return undefined;
}

const CONNECT_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed by the server',
};

/** Maps whatever undici/Node threw to an OutboundError with a short, secret-free message. */
export function toOutboundError(err: unknown, host: string): OutboundError {
  const found = findOutboundError(err);
  if (found) return found;
  let code: string | undefined;
  for (let e = err, depth = 0; e && depth < 5 && !code; e = (e as { cause?: unknown }).cause, depth++) {
    code = (e as { code?: string }).code;
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new OutboundError('timeout', `request to ${host} timed out`, { cause: err });
  }
  const tlsProblem = code && /TLS|SSL|CERT|VERIFY|SELF_SIGNED/.test(code);
  const why = (code && CONNECT_CODES[code]) ?? (tlsProblem ? `certificate not accepted (${code})` : code ?? 'request failed');
  return new OutboundError('connect_failed', `request to ${host} failed: ${why}`, { cause: err });
}
