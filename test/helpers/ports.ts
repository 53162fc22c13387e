import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Ports for servers a test starts in a child process are taken below the kernel's ephemeral range (Linux:
 * /proc/sys/net/ipv4/ip_local_port_range, 32768-60999 by default). A port from that range, free when checked, can
 * become the local port of any process's outgoing connection before the child listens on it (other test files open
 * thousands), and the child then fails to start with EADDRINUSE.
 */
const PORTS_FROM = 10_000;
const PORTS_TO = ephemeralStart() - 1;

function ephemeralStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

const listenable = (port: number) => new Promise<boolean>((resolve) => {
  const s = createServer();
  s.once('error', () => resolve(false));
  s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
});

/** `n` consecutive ports free now, below the ephemeral range (the workers' own ports are WORKER_PORTS + index). */
export async function freeRange(n: number): Promise<number> {
  for (;;) {
    const base = PORTS_FROM + Math.floor(Math.random() * (PORTS_TO - PORTS_FROM - n));
    const ok = await Promise.all(Array.from({ length: n }, (_, i) => listenable(base + i)));
    if (ok.every(Boolean)) return base;
  }
}

/** A port free now, below the ephemeral range. */
export function freePort(): Promise<number> {
  return freeRange(1);
}
