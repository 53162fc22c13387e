import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeClock } from '../../src/kernel/clock.js';
import { startTestServer } from '../helpers/server.js';
import { callContext, startReceiver, toolContext, toolsFor } from './helpers.js';

const WS = 'ws_limits';

test('a call that outlasts the tool timeout ends with a timeout error (fake clock)', async () => {
  const clock = new FakeClock();
  const s = await startTestServer({ clock });
  const hold: Array<() => void> = [];
  const receiver = await startReceiver((_r, res) => hold.push(() => res.end('late')));
  try {
    const tool = await s.services.httpTools.create(WS, {
      name: 'slow', description: 'Never answers in time.', label: null, method: 'GET', url: `${receiver.url}/slow`,
      headers: {}, bodyTemplate: null, parameters: { type: 'object', properties: {} }, timeoutMs: 2000,
    });
    const arrived = receiver.nextRequest();
    const pending = s.services.httpTools.call(tool, {});
    await arrived;
    await clock.advance(1999);
    await clock.advance(1);
    const r = await pending;
    assert.is(r.ok, false);
    assert.is(r.error?.code, 'timeout');
    assert.match(r.error!.message, /longer than 2000 ms/);
  } finally {
    hold.forEach((f) => f());
    await receiver.close();
    await s.stop();
  }
});

test("the bot's toolTimeoutMs cuts a call shorter than the tool's own timeout", async () => {
  const clock = new FakeClock();
  const s = await startTestServer({ clock });
  const hold: Array<() => void> = [];
  const receiver = await startReceiver((_r, res) => hold.push(() => res.end('late')));
  try {
    const tool = await s.services.httpTools.create(WS, {
      name: 'slow2', description: 'Slow.', label: 'Checking', method: 'GET', url: `${receiver.url}/slow`,
      headers: {}, bodyTemplate: null, parameters: { type: 'object', properties: {} }, timeoutMs: 60_000,
    });
    const ctx = toolContext(s.app, WS, { http: [{ toolId: tool._id, enabled: true }], toolTimeoutMs: 1000 });
    const [agentTool] = await toolsFor(s, ctx);
    assert.is(agentTool.label, 'Checking');
    const arrived = receiver.nextRequest();
    const pending = agentTool.run({}, callContext(ctx));
    await arrived;
    await clock.advance(1000);
    const r = await pending;
    assert.ok(r.isError);
    assert.match(r.content, /longer than 1000 ms/);
  } finally {
    hold.forEach((f) => f());
    await receiver.close();
    await s.stop();
  }
});

test('a stored tool whose host comes from a secret is not called, and the error does not name the secret', async () => {
  const s = await startTestServer({ env: { ALLOW_PRIVATE_NETWORK: 'false' } });
  try {
    await s.services.secrets.set(WS, 'INTERNAL_HOST', '10.203.44.17');
    const tool = await s.services.httpTools.create(WS, {
      name: 'internal', description: 'Internal API.', label: null, method: 'GET', url: 'http://internal.example/status',
      headers: {}, bodyTemplate: null, parameters: { type: 'object', properties: {} }, timeoutMs: 5000,
    });
    // Saving refuses such a URL (422); a record from before that rule is refused when called.
    const legacy = (await s.services.httpTools.records.updateOne({ workspaceId: WS, _id: tool._id }, { $set: { url: 'http://{{secrets.INTERNAL_HOST}}/status' } }))!;
    const r = await s.services.httpTools.call(legacy, {});
    assert.is(r.error?.code, 'template');
    assert.match(r.error!.message, /scheme, host or port/);
    assert.not.ok(JSON.stringify(r).includes('10.203.44.17'));
  } finally {
    await s.stop();
  }
});

test('a header value that would carry a line break from the arguments is refused', async () => {
  const s = await startTestServer();
  const receiver = await startReceiver();
  try {
    const tool = await s.services.httpTools.create(WS, {
      name: 'hdr', description: 'd', label: null, method: 'GET', url: `${receiver.url}/h`,
      headers: { 'X-User': '{{args.user}}' }, bodyTemplate: null, parameters: { type: 'object', properties: { user: { type: 'string' } } }, timeoutMs: 5000,
    });
    const r = await s.services.httpTools.call(tool, { user: 'bob\r\nX-Admin: 1' });
    assert.is(r.error?.code, 'template');
    assert.is(receiver.received.length, 0);
  } finally {
    await receiver.close();
    await s.stop();
  }
});

test('a tool that sends a secret in a header does not follow redirects; one without secrets does', async () => {
  const s = await startTestServer();
  const target = await startReceiver();
  const redirector = await startReceiver((_r, res) => res.writeHead(307, { location: `${target.url}/landed` }).end());
  try {
    await s.services.secrets.set(WS, 'API_KEY', 'redirect-secret-value');
    const base = { description: 'd', label: null, method: 'GET' as const, bodyTemplate: null, parameters: { type: 'object', properties: {} }, timeoutMs: 5000 };
    const withSecret = await s.services.httpTools.create(WS, { ...base, name: 'with_secret', url: `${redirector.url}/a`, headers: { 'X-Api-Key': '{{secrets.API_KEY}}' } });
    const r1 = await s.services.httpTools.call(withSecret, {});
    assert.is(r1.status, 307);
    assert.is(target.received.length, 0);
    const plain = await s.services.httpTools.create(WS, { ...base, name: 'plain', url: `${redirector.url}/b`, headers: {} });
    const r2 = await s.services.httpTools.call(plain, {});
    assert.is(r2.status, 200);
    assert.is(target.received.length, 1);
  } finally {
    await redirector.close();
    await target.close();
    await s.stop();
  }
});

test.run();
