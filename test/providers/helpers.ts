import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import type { ChatEvent, ChatRequest, ProviderAdapter } from '../../src/providers/index.js';

/** Streams one completion and collects its events, in order. */
export async function collect(adapter: ProviderAdapter, req: ChatRequest, signal?: AbortSignal): Promise<ChatEvent[]> {
  const out: ChatEvent[] = [];
  await adapter.chat!(req, (e) => out.push(e), signal);
  return out;
}

/**
 * Streams a completion whose event handler throws at the second text delta. Resolves with what the stream
 * rejected with, the error the handler threw, and the deltas heard; the stream should end with exactly that error.
 */
export async function throwAtSecondDelta(adapter: ProviderAdapter, req: ChatRequest): Promise<{ err: unknown; thrown: Error; heard: string[] }> {
  const heard: string[] = [];
  const thrown = new Error('the consumer gave up');
  const err = await rejection(adapter.chat!(req, (e) => { if (e.type === 'text') { heard.push(e.delta); if (heard.length === 2) throw thrown; } }));
  return { err, thrown, heard };
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
