import type { Redis } from 'ioredis';

/** RESP for CLIENT REPLY OFF: from then on Redis answers nothing on the connection. */
const REPLY_OFF = '*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$3\r\nOFF\r\n';
/** How ioredis reports a reply with no command waiting for it (DataHandler.shiftCommand). */
const UNEXPECTED_REPLY = /Command queue state error/;

/**
 * Publishes nobody waits an answer for (a workspace's events to the processes watching it), on a connection of
 * their own in CLIENT REPLY OFF mode: Redis sends nothing back, so the publishing process is not woken up for an
 * answer it would drop (a wake-up costs 0.3-0.5 ms of CPU on a small virtual machine: docs/performance.md). One
 * connection keeps their order. ioredis keeps the connection (address, TLS, AUTH, reconnecting); after each
 * handshake the mode is set again, and the commands are written to its socket as ioredis would write them.
 * Where Redis refuses CLIENT REPLY (an ACL without it, a managed service that does not offer it), its answer
 * arrives with no command waiting, and from then on `publish` says no: the caller publishes on the command
 * connection, answered, as before. It also says no while the connection is down.
 */
export class QuietPublisher {
  /** CLIENT REPLY OFF was sent on the current connection. */
  private quiet = false;
  /** Redis answered on this connection: CLIENT REPLY OFF was refused (not asked again). */
  private refused = false;

  constructor(private readonly redis: Redis) {
    redis.on('ready', () => {
      if (this.refused) return;
      redis.stream.write(REPLY_OFF);
      this.quiet = true;
    });
    for (const e of ['close', 'end', 'reconnecting']) redis.on(e, () => { this.quiet = false; });
    redis.on('error', (err: Error) => {
      if (!UNEXPECTED_REPLY.test(err.message)) return; // a lost connection: ioredis reconnects
      this.refused = true;
      this.quiet = false;
    });
  }

  /** Whether publishes go without answers now. */
  get active(): boolean { return this.quiet && this.redis.status === 'ready'; }

  /** PUBLISH with no answer; false (nothing sent) when that cannot be done now. */
  publish(channel: string, message: string): boolean {
    if (!this.active) return false;
    this.redis.stream.write(`*3\r\n$7\r\nPUBLISH\r\n$${Buffer.byteLength(channel)}\r\n${channel}\r\n$${Buffer.byteLength(message)}\r\n${message}\r\n`);
    return true;
  }

  connect(): void {
    this.redis.connect().catch(() => { /* ioredis retries; meanwhile publishes are answered on the command connection */ });
  }

  close(): void {
    this.refused = true;
    this.quiet = false;
    this.redis.disconnect();
  }
}
