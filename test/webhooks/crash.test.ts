import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startReceiver } from './helpers.js';
import { until, quietFor } from '../helpers/until.js';

const fixture = fileURLToPath(new URL('./fixtures/server.ts', import.meta.url));
const root = fileURLToPath(new URL('../../', import.meta.url));

/** Starts the fixture server and resolves with its first JSON line. */
function spawnServer(env: Record<string, string>): Promise<{ child: ChildProcess; first: any }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve({ child, first: JSON.parse(line) }));
    // 'close' comes after stdout is read to its end, so a line written just before dying is seen first.
    child.once('close', (code) => reject(new Error(`fixture exited (${code}) before answering: ${stderr}`)));
  });
}

const exited = (child: ChildProcess) => new Promise<void>((resolve) => {
  if (child.exitCode !== null || child.signalCode !== null) resolve();
  else child.once('exit', () => resolve());
});

/** Waits (real time, up to 15 s) for the receiver's first request and checks it is this event, signed with this secret. */
async function assertReceived(receiver: Awaited<ReturnType<typeof startReceiver>>, eventId: string, secret: string): Promise<void> {
  await until(() => receiver.seen.length > 0, { timeout: 15_000, interval: 20, message: 'the delivery after the restart' });
  const seen = receiver.seen[receiver.seen.length - 1];
  assert.is(seen.headers['service-event-id'], eventId);
  assert.is(JSON.parse(seen.body).id, eventId);
  const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(seen.headers['service-signature']))!;
  assert.is(v1, createHmac('sha256', secret).update(`${t}.${seen.body}`).digest('hex'));
}

test('a queued delivery survives kill -9 and arrives after a restart with the same event id', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-webhook-crash-'));
  // Reserve a port, then close it: the receiver is down while the first server tries.
  const probe = await startReceiver();
  const port = Number(new URL(probe.origin).port);
  await probe.close();
  const children: ChildProcess[] = [];
  let receiver: Awaited<ReturnType<typeof startReceiver>> | null = null;
  try {
    const first = await spawnServer({ MODE: 'seed', DATA_DIR: dataDir, RECEIVER_URL: `http://127.0.0.1:${port}/hook` });
    children.push(first.child);
    const seeded = first.first;
    assert.is(seeded.state, 'retrying', 'the first try failed: nobody was listening');
    assert.is(seeded.attempts, 1);
    first.child.kill('SIGKILL');
    await exited(first.child);

    const listening = receiver = await startReceiver(port);
    // The restart happens two minutes "later": the retry (due after one minute) is overdue at start-up.
    const second = await spawnServer({ MODE: 'resume', DATA_DIR: dataDir, CLOCK_OFFSET_MS: '120000' });
    children.push(second.child);
    assert.ok(second.first.ready);
    await until(() => listening.seen.length > 0, { timeout: 15_000, interval: 20, message: 'the delivery after the restart' });
    assert.is(receiver.seen.length, 1, 'delivered once after the restart');
    const seen = receiver.seen[0];
    assert.is(seen.headers['service-event-id'], seeded.eventId);
    assert.is(JSON.parse(seen.body).id, seeded.eventId);
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(seen.headers['service-signature']))!;
    assert.is(v1, createHmac('sha256', seeded.secret).update(`${t}.${seen.body}`).digest('hex'), 'signed with the secret kept across the restart');
  } finally {
    for (const c of children) { if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL'); await exited(c); }
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('an event stored just before a kill -9 (its delivery record not yet written) is delivered after a restart', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-webhook-crash-'));
  const receiver = await startReceiver();
  const children: ChildProcess[] = [];
  try {
    const first = await spawnServer({ MODE: 'kill-after-store', DATA_DIR: dataDir, RECEIVER_URL: receiver.url });
    children.push(first.child);
    await exited(first.child);
    assert.is(first.child.signalCode, 'SIGKILL');
    assert.is(receiver.seen.length, 0, 'nothing was sent before the crash');

    const second = await spawnServer({ MODE: 'resume', DATA_DIR: dataDir });
    children.push(second.child);
    await assertReceived(receiver, first.first.eventId, first.first.secret);
    await quietFor(300, 'a second delivery of the same event'); // must not come: the event is sent once
    assert.is(receiver.seen.length, 1, 'sent once');
  } finally {
    for (const c of children) { if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL'); await exited(c); }
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a try cut off by kill -9 while the receiver holds it open is sent again after a restart with the same id', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-webhook-crash-'));
  const receiver = await startReceiver();
  receiver.handle = () => undefined; // holds every request open, never answers
  const children: ChildProcess[] = [];
  try {
    const first = await spawnServer({ MODE: 'in-flight', DATA_DIR: dataDir, RECEIVER_URL: receiver.url });
    children.push(first.child);
    await until(() => receiver.seen.length > 0, { timeout: 15_000, interval: 20, message: 'the first try reaching the receiver' });
    assert.is(receiver.seen.length, 1, 'the first try reached the receiver');
    first.child.kill('SIGKILL');
    await exited(first.child);

    receiver.seen.length = 0;
    receiver.handle = (_req, res) => { res.writeHead(200).end('ok'); };
    const second = await spawnServer({ MODE: 'resume', DATA_DIR: dataDir });
    children.push(second.child);
    await assertReceived(receiver, first.first.eventId, first.first.secret);
  } finally {
    for (const c of children) { if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL'); await exited(c); }
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
