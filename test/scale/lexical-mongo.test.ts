/**
 * The keyword index across machines, for real: two server processes with their own DATA_DIR over one MongoDB
 * and one redis-server. Runs when MONGODB_URL points at a server (a fresh database per run, dropped after),
 * like the store contract suites; reported as skipped otherwise.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openSqlite } from '../../src/store/sqlite.js';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { freePort } from '../helpers/ports.js';
import { at, must, startRedis, type Redis } from './world.js';
import { until } from '../helpers/until.js';

const mongoUrl = process.env.MONGODB_URL;
const dbName = `servicechat_test_lex_${Date.now().toString(36)}_${process.pid}`;
const NAME = 'two machines over MongoDB: what one indexes or removes, keyword search on the other finds or stops finding, also after being off';

interface Machine { proc: ChildProcess; dataDir: string; url: string; logs: any[]; stop(): Promise<void> }

/** `node src/main.ts` as one machine: its own DATA_DIR and port, the shared MongoDB and Redis. */
async function startMachine(redis: Redis, dataDir = mkdtempSync(join(tmpdir(), 'sc-lexmongo-'))): Promise<Machine> {
  const port = await freePort();
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, NODE_ENV: 'test', LOG_LEVEL: 'info',
      ALLOW_PRIVATE_NETWORK: 'true', SECRET_KEY: 'test-secret-key-0123456789abcdef0123456789',
      MONGODB_URL: mongoUrl!, MONGODB_DB: dbName, REDIS_URL: redis.url,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: any[] = [];
  let buf = '', stderr = '';
  proc.stderr!.on('data', (c) => { stderr += c; });
  await new Promise<void>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`the server exited (${code}): ${stderr}`)));
    proc.stdout!.on('data', (c) => {
      buf += c;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i); buf = buf.slice(i + 1);
        try { logs.push(JSON.parse(line)); } catch { continue; }
        if (logs[logs.length - 1].msg === 'server listening') resolve();
      }
    });
  });
  return {
    proc, dataDir, url: `http://127.0.0.1:${port}`, logs,
    stop: () => new Promise<void>((resolve) => { if (proc.exitCode !== null) return resolve(); proc.once('exit', () => resolve()); proc.kill('SIGTERM'); }),
  };
}

/** Entries a machine's lexical.db holds for a source (search never shows chunks the store lost; the file is read directly). */
function entries(m: Machine, sourceId: string): number {
  const db = openSqlite(join(m.dataDir, 'lexical.db'));
  try { return db.prepare('SELECT COUNT(*) FROM lex_meta WHERE source = ?').pluck().get(sourceId) as number; } finally { db.close(); }
}

if (!mongoUrl) {
  console.log(`# ${NAME} (skipped: MONGODB_URL is not set)`);
  test.skip(NAME, () => {});
} else {
  let redis: Redis;
  let a: Machine;
  let b: Machine;
  let owner: TestSession;
  test.before(async () => {
    redis = await startRedis();
    a = await startMachine(redis);
    b = await startMachine(redis);
    owner = await setupOwner(at(a.url) as never);
  });
  test.after(async () => {
    await a?.stop(); await b?.stop();
    await redis?.stop();
    for (const m of [a, b]) if (m) rmSync(m.dataDir, { recursive: true, force: true });
    const { dropMongoDatabase } = await import('../../src/store/mongo.js');
    await dropMongoDatabase(mongoUrl, dbName);
  });

  const addText = async (m: Machine, name: string, text: string): Promise<string> => {
    const s = must('add source', await at(m.url).request('POST', '/api/v1/knowledge', { headers: owner.headers, body: { kind: 'text', name, text: `# ${name}\n\n${text}` } }), 201);
    const ready = await until(async () => must('sources', await at(m.url).request('GET', '/api/v1/knowledge', { headers: owner.headers }), 200).items.find((x: any) => x.id === s.id), { ok: (x) => x?.status === 'ready', timeout: 20_000, interval: 100 });
    assert.is(ready?.status, 'ready', JSON.stringify(ready));
    return s.id;
  };
  const titles = async (m: Machine, query: string): Promise<string[]> =>
    must('search', await at(m.url).request('POST', '/api/v1/knowledge/search', { headers: owner.headers, body: { query } }), 200).results.map((r: any) => r.title);

  test(NAME, async () => {
    const id = await addText(a, 'Tomato guide', 'Water tomatoes deeply twice a week; mulch keeps the soil moist.');
    assert.equal(await until(() => titles(b, 'mulch moist'), { ok: (t) => t.length > 0, timeout: 20_000, interval: 100 }), ['Tomato guide'], 'found on the machine that did not index it');

    must('remove', await at(a.url).request('DELETE', `/api/v1/knowledge/${id}`, { headers: owner.headers }), 200, 204);
    assert.is(await until(() => entries(b, id), { ok: (n) => n === 0, timeout: 20_000, interval: 100 }), 0, "the removed source leaves the other machine's file");

    // B is off while A indexes; at its next start it copies what it missed.
    await b.stop();
    const added = await addText(a, 'Frost dates', 'Cover seedlings with fleece when a late frost is forecast.');
    b = await startMachine(redis, b.dataDir);
    const done: any = await until(() => b.logs.find((l) => l.msg === 'lexical index reconciled with the store'), { ok: (l) => !!l, timeout: 20_000, interval: 100 });
    assert.ok(done && done.copied >= 1, `the start's reconcile copied the missed document: ${JSON.stringify(done)}`);
    assert.equal(await titles(b, 'fleece frost'), ['Frost dates']);
    assert.ok(entries(b, added) > 0);
  });
}

test.run();
