import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openEmbeddedStore } from '../../src/store/embedded.js';

/**
 * Runs `burst` with a store holding one item, counting per turn of the event loop (each runs due timers and socket
 * callbacks first) the store answers that settle, and asserts that no turn settled more than 16.
 */
async function answersPerTurn(burst: (find: () => Promise<void>) => Promise<unknown>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sc-answers-'));
  const store = openEmbeddedStore(dir);
  try {
    const items = store.collection<{ _id: string; workspaceId: string }>('items');
    await items.insertOne({ _id: 'item_1', workspaceId: 'ws_1' });
    let turn = 0;
    let ticking = true;
    const tick = () => { turn++; if (ticking) setImmediate(tick); };
    setImmediate(tick);
    const perTurn = new Map<number, number>();
    await burst(() => items.findById('ws_1', 'item_1').then((r) => {
      assert.is(r?._id, 'item_1');
      perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1);
    }));
    ticking = false;
    const most = Math.max(...perTurn.values());
    assert.ok(most <= 16, `${most} answers settled in one turn of the event loop (per turn: ${[...perTurn.values()].join(', ')})`);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test("a burst of store calls is answered in slices: the event loop turns between them, not after all 200 callers' continuations", () =>
  // Sent together, so the store's thread answers them together (one transaction, one message).
  answersPerTurn((find) => Promise.all(Array.from({ length: 200 }, find))));

test('answers that arrive in several messages at once still settle 16 a turn, not 16 per message', () =>
  answersPerTurn((find) => {
    // The main thread is busy while the store's thread answers each group in a message of its own: when the loop
    // turns again, all the messages are waiting and are delivered in the same turn.
    const hold = () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 150);
    const calls: Array<Promise<void>> = [];
    for (const size of [3, 5, 200]) {
      calls.push(...Array.from({ length: size }, find));
      hold();
    }
    return Promise.all(calls);
  }));

test.run();
