/**
 * The main module of a child process of the isolated lane (./process-lane.ts): it receives one task (the task
 * module's URL and its envelope), says when the task starts, sends its result or its error, and exits. A child
 * whose parent goes away exits too.
 */
import type { TaskEnvelope } from './started.js';
import { ownWaitCount, type WaitCount } from './task-clock.js';

export interface ChildRequest { url: string; envelope: TaskEnvelope }
export type ChildReply =
  | { started: true; waits: WaitCount | null }
  | { result: unknown }
  | { error: { name: string; message: string; code?: string } };

const send = (reply: ChildReply) => new Promise<void>((resolve) => { process.send?.(reply, undefined, {}, () => resolve()); });

process.on('disconnect', () => process.exit(1));
process.once('message', async (msg: ChildRequest) => {
  let reply: ChildReply;
  try {
    const task = (await import(msg.url) as { default: (envelope: TaskEnvelope) => unknown }).default;
    await send({ started: true, waits: ownWaitCount() });
    reply = { result: await task(msg.envelope) };
  } catch (err) {
    // pdf.js throws objects that are not Errors; the name and message are what the caller reads.
    const e = err as { name?: unknown; message?: unknown; code?: unknown };
    reply = { error: { name: String(e?.name ?? 'Error'), message: String(e?.message ?? err), ...(typeof e?.code === 'string' ? { code: e.code } : {}) } };
  }
  await send(reply);
  process.exit(0);
});
