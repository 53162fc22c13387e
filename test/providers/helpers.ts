import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import type { ChatEvent } from '../../src/providers/index.js';

/** Drains a chat stream into its events, in order. */
export async function collect(stream: AsyncIterable<ChatEvent>): Promise<ChatEvent[]> {
  const out: ChatEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

export const textOf = (events: ChatEvent[]) => events.flatMap((e) => (e.type === 'text' ? [e.delta] : [])).join('');

/** Resolves with the error a promise rejects with (fails when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

/** A loopback port that nothing listens on. */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
