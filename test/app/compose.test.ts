/**
 * The composition root (src/compose.ts, issue 37): every service is created once at start-up in dependency order,
 * the tool sources are registered there, and the services stop in the reverse order of creation whatever was used
 * first (before, each was made on first use: the built-in tools existed only once the conversation service had been
 * asked for, and shutdown followed first use).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AppContext } from '../../src/app/context.js';
import { openRecords } from '../../src/records-root.js';
import { botListsChanged } from '../../src/bots/list-cache.js';
import { EventBus } from '../../src/app/event-bus.js';
import { BotConfigSchema } from '../../src/bots/config/index.js';
import { composeServices } from '../../src/compose.js';
import { startServer } from '../../src/server.js';
import { loadConfig } from '../../src/config/index.js';
import { systemClock } from '../../src/kernel/clock.js';
import { createLogger } from '../../src/kernel/log.js';
import { knowledge } from '../../src/knowledge/service.js';
import { providerFetch } from '../../src/providers/connections.js';
import { openEmbeddedStore } from '../../src/store/embedded.js';
import { openEmbeddedVectors } from '../../src/store/vectors-embedded.js';
import { agentDefinition } from '../../src/voice/hosted-agent.js';
import { closePool } from '../../workers/pool.js';

/** A context over a fresh embedded store, as a command or a benchmark builds one (no HTTP server, no socket). */
function bareApp() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-compose-'));
  const log = createLogger('silent');
  const store = openEmbeddedStore(dataDir);
  const vectors = openEmbeddedVectors(dataDir);
  const app: AppContext = {
    config: loadConfig({ DATA_DIR: dataDir, NODE_ENV: 'test', LOG_LEVEL: 'silent', SECRET_KEY: 'test-secret-key-0123456789abcdef0123456789' }),
    log, clock: systemClock, store, records: openRecords(store, { botsChanged: (workspaceId) => botListsChanged(app, workspaceId) }), vectors, events: new EventBus(store, systemClock, log),
    secretKey: Buffer.alloc(32, 1), scale: null, onClose: () => {},
  };
  return { app, async close() { await vectors.close(); await store.close(); rmSync(dataDir, { recursive: true, force: true }); } };
}

test('a freshly composed app gives a bot its built-in tools before any conversation exists', async () => {
  const { app, close } = bareApp();
  const composed = composeServices(app);
  try {
    const config = BotConfigSchema.parse({ behavior: { leadCapture: { enabled: true } }, face: { expressions: true } });
    // What a hosted voice agent is given when its bot is published (no conversation has been asked for yet).
    const names = (await agentDefinition(app, composed.services.tools, 'ws_1', { _id: 'bot_1', name: 'Shop' }, config)).tools.map((t) => t.name);
    assert.ok(names.includes('end_conversation'), `end_conversation is offered: ${names.join()}`);
    assert.ok(names.includes('capture_lead'), `capture_lead is offered: ${names.join()}`);
    const off = BotConfigSchema.parse({ tools: { builtins: { end_conversation: false } } });
    assert.not.ok((await composed.services.tools.toolsFor({ app, workspaceId: 'ws_1', botId: 'bot_1', conversationId: '', visitorId: '', config: off }))
      .some((t) => t.name === 'end_conversation'), 'a bot that turned it off does not get it');
  } finally {
    await composed.stop();
    await close();
  }
});

test('every service exists once composed, and reading one the root did not create says where services are made', () => {
  const { app, close } = bareApp();
  assert.throws(() => knowledge(app), /knowledge service was not created for this app: services are created at start-up by composeServices \(src\/compose\.ts\)/);
  const composed = composeServices(app);
  assert.is(knowledge(app), composed.services.knowledge);
  assert.throws(() => composeServices(app), /already created for this app/);
  // One guarded client carries all provider traffic (hosted agents' calls included), with one set of limits.
  assert.is(providerFetch(app), composed.services.providerClient.fetch);
  return composed.stop().then(close);
});

test('the server creates every service before it listens and stops them in the reverse order, whatever was used first', async () => {
  const lines: Array<{ msg: string; service?: string }> = [];
  const sink = new Writable({ write(chunk, _enc, done) { for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l)); done(); } });
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-compose-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, NODE_ENV: 'test', LOG_LEVEL: 'debug', SECRET_KEY: 'test-secret-key-0123456789abcdef0123456789' });
  const server = await startServer(config, { logger: createLogger('debug', sink) });
  try {
    const created = lines.filter((l) => l.msg === 'service created').map((l) => l.service!);
    const listening = lines.findIndex((l) => l.msg === 'server listening');
    assert.ok(listening > lines.findLastIndex((l) => l.msg === 'service created'), 'all services exist before the server listens');
    assert.ok(created.length >= 19, created.join());
    assert.equal(new Set(created).size, created.length, 'each service is created once');
    // Used last-created first: the conversation service, then the live hub, then the webhooks.
    const { services } = server;
    assert.is(services.conversations.hub, services.chatHub);
    assert.is(services.liveHub.count('ws_1'), 0);
    await services.webhooks.endpoints.list('ws_1');
    assert.ok(created.indexOf('webhooks') < created.indexOf('live hub') && created.indexOf('live hub') < created.indexOf('conversations'));
  } finally {
    await server.close();
    await closePool();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const created = lines.filter((l) => l.msg === 'service created').map((l) => l.service!);
  const stopped = lines.filter((l) => l.msg === 'service stopped').map((l) => l.service!);
  assert.equal(stopped, [...created].reverse());
});

test.run();
