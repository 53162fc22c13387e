import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TurnBudget } from '../../src/kernel/turn-budget.js';

// Issue 37: a burst of steps runs a few milliseconds per turn of the event loop, in order, never as one long task.

/** Holds the thread for `ms` (a step's own work). */
const busy = (ms: number) => { const end = performance.now() + ms; while (performance.now() < end) { /* work */ } };

/** An async call that does not wait (as a check answered from memory): its await still yields a microtask. */
const fromMemory = async () => 0;

test('a burst of 1 ms steps runs at most the slice (3 ms) and one step per turn, in the order asked', async () => {
  const budget = new TurnBudget(3);
  // Turns of the loop, counted by a ticker that goes again each check phase (what another socket's work would get).
  let turn = 0;
  let ticking = true;
  const tick = () => { turn++; if (ticking) setImmediate(tick); };
  setImmediate(tick);
  const ran: Array<{ step: number; turn: number }> = [];
  await Promise.all(Array.from({ length: 60 }, async (_, step) => {
    await budget.take();
    // Steps start with awaits that do not wait (the work comes after them): the clock is still read between steps.
    await fromMemory();
    await fromMemory();
    ran.push({ step, turn });
    busy(1);
  }));
  ticking = false;
  assert.equal(ran.map((r) => r.step), Array.from({ length: 60 }, (_, i) => i), 'first come, first served');
  const perTurn = new Map<number, number>();
  for (const r of ran) perTurn.set(r.turn, (perTurn.get(r.turn) ?? 0) + 1);
  const most = Math.max(...perTurn.values());
  // 3 ms of 1 ms steps: the step that starts before the slice ends runs too (a slow machine only lowers the count).
  assert.ok(most <= 4, `${most} steps ran in one turn`);
  assert.ok(perTurn.size >= 15, `the 60 steps took ${perTurn.size} turns`);
  assert.is(budget.queued, 0);
});

test('short steps asked together run in the same turn while the slice has time left', async () => {
  const budget = new TurnBudget(50);
  let turn = 0;
  let ticking = true;
  const tick = () => { turn++; if (ticking) setImmediate(tick); };
  setImmediate(tick);
  const turns = await Promise.all(Array.from({ length: 20 }, async () => { await budget.take(); await fromMemory(); return turn; }));
  ticking = false;
  assert.is(new Set(turns).size, 1, `turns ${[...new Set(turns)].join(', ')}`);
});

test.run();
