/**
 * The bots list each process keeps (src/bots/list-cache.ts) is dropped on every process of the group before a
 * change is answered: a client that changed a bot on one process lists it changed on the other at once.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { must, startGroupWorld, type GroupWorld } from './world.js';

let world: GroupWorld;
test.before(async () => { world = await startGroupWorld({ n: 2 }); });
test.after(async () => { await world?.close(); });

const w = (i: number) => world.w(i);
const as = (i: number, method: string, path: string, body?: unknown) =>
  w(i).request(method, path, { ...(body !== undefined ? { body } : {}), headers: world.owner.headers });
const listed = async (i: number) => must('GET /bots', await as(i, 'GET', '/api/v1/bots'), 200).items as Array<{ id: string; name: string; status: string }>;

test('a change made on one process is on the other process\'s next list', async () => {
  const bot = must('create', await as(0, 'POST', '/api/v1/bots', { name: 'Across' }), 201);
  assert.ok((await listed(1)).some((b) => b.id === bot.id), 'created on 0, listed on 1');
  assert.ok((await listed(0)).some((b) => b.id === bot.id));
  must('rename', await as(0, 'PATCH', `/api/v1/bots/${bot.id}`, { revision: bot.revision, name: 'Renamed' }), 200);
  assert.is((await listed(1)).find((b) => b.id === bot.id)?.name, 'Renamed');
  must('pause', await as(1, 'POST', `/api/v1/bots/${bot.id}/status`, { status: 'paused' }), 200);
  assert.is((await listed(0)).find((b) => b.id === bot.id)?.status, 'paused');
  must('delete', await as(0, 'DELETE', `/api/v1/bots/${bot.id}`), 204);
  assert.not.ok((await listed(1)).some((b) => b.id === bot.id));
});

test.run();
