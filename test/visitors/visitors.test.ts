import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { identityHash } from '../../src/chat/identity.js';
import { createToken, type TestToken } from '../helpers/auth.js';
import { startTeamWorld, type TeamWorld } from '../team/helpers.js';

let w: TeamWorld;
let privacy: TestToken;
let secret: string;
test.before(async () => {
  w = await startTeamWorld({ behavior: { leadCapture: { enabled: true } }, security: { identity: { mode: 'optional' } } });
  const s = await w.server.request('POST', `/api/v1/bots/${w.botId}/identity-secret`, { headers: w.owner.headers });
  secret = s.body.secret;
  privacy = await createToken(w.server, w.owner, ['privacy:write']);
});
test.after(async () => { await w.stop(); });

const get = (path: string) => w.server.request('GET', path, { headers: privacy.headers });

test('a visitor is found, exported with everything stored, and erased so nothing is left', async () => {
  const userId = 'customer-42';
  const visitor = await w.widget({ userId, userHash: identityHash(secret, userId), email: 'Erin@Example.com', name: 'Erin' } as never);
  const ready = await visitor.frame('ready');
  assert.ok(ready.verified, 'the identity was verified');

  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#ff0000' } }).png().toBuffer();
  const up = await w.server.fetch(`/widget/v1/uploads?botId=${w.botId}&visitorToken=${encodeURIComponent(ready.visitorToken)}`, { method: 'POST', headers: { 'content-type': 'image/png' }, body: png });
  assert.is(up.status, 201);
  const upload = await up.json() as { id: string };

  w.fake.script([{ toolCalls: [{ name: 'capture_lead', arguments: { name: 'Erin', email: 'erin.lead@example.com' } }] }, { text: 'Got it, Erin.' }]);
  visitor.send({ t: 'message', text: 'Here is my broken part, call me', attachments: [upload.id] });
  const conv = await visitor.frame('conversation');
  const answer = await visitor.frame('message', (f) => f.message.role === 'assistant');
  visitor.send({ t: 'feedback', messageId: answer.message.id, value: -1 });
  await visitor.frame('feedback_ok');
  await visitor.close();

  const byUser = await get(`/api/v1/visitors?userId=${userId}`);
  assert.equal(byUser.body.items.map((v: { id: string }) => v.id), [ready.visitorId]);
  const byLeadEmail = await get('/api/v1/visitors?email=ERIN.LEAD@example.com');
  assert.equal(byLeadEmail.body.items.map((v: { id: string }) => v.id), [ready.visitorId], 'the e-mail left in a lead finds them too');
  assert.is((await get('/api/v1/visitors?email=nobody@example.com')).body.items.length, 0);
  assert.is((await get('/api/v1/visitors')).status, 422, 'email or userId is needed');

  const exported = await get(`/api/v1/visitors/${ready.visitorId}/export`);
  assert.is(exported.status, 200);
  const data = exported.body;
  assert.is(data.visitor.userId, userId);
  assert.is(data.conversations.length, 1);
  assert.is(data.conversations[0].id, conv.conversationId);
  assert.equal(data.conversations[0].messages.map((m: { role: string }) => m.role), ['user', 'assistant']);
  assert.equal(data.conversations[0].messages[0].attachments.map((a: { id: string }) => a.id), [upload.id]);
  assert.is(data.conversations[0].toolCalls[0].name, 'capture_lead');
  assert.is(data.attachments.length, 1);
  assert.equal(Buffer.from(data.attachments[0].dataBase64, 'base64').subarray(1, 4).toString(), 'PNG');
  assert.equal(data.leads.map((l: { fields: Record<string, string> }) => l.fields.email), ['erin.lead@example.com']);
  assert.equal(data.feedback.map((f: { kind: string; value: number }) => [f.kind, f.value]), [['thumb', -1]]);

  assert.is((await w.server.request('DELETE', `/api/v1/visitors/${ready.visitorId}`, { headers: w.agent.headers })).status, 403, 'agents cannot erase');
  const erased = await w.server.request('DELETE', `/api/v1/visitors/${ready.visitorId}`, { headers: privacy.headers });
  assert.is(erased.status, 200);
  assert.equal(erased.body, { conversations: 1, messages: 2, leads: 1, attachments: 1 });

  const ws = w.owner.workspaceId;
  const db = w.server.app.records;
  assert.is((await get(`/api/v1/visitors?userId=${userId}`)).body.items.length, 0);
  assert.is((await get('/api/v1/visitors?email=erin.lead@example.com')).body.items.length, 0);
  assert.is((await get(`/api/v1/visitors/${ready.visitorId}/export`)).status, 404);
  assert.is(await db.conversations.count({ workspaceId: ws, visitorId: ready.visitorId }), 0);
  assert.is(await db.messages.count({ workspaceId: ws, conversationId: conv.conversationId }), 0);
  assert.is(await db.toolCalls.count({ workspaceId: ws, conversationId: conv.conversationId }), 0);
  assert.is(await db.feedback.count({ workspaceId: ws, conversationId: conv.conversationId }), 0);
  assert.is(await db.attachments.count({ workspaceId: ws, visitorId: ready.visitorId }), 0);
  assert.is(await w.server.app.store.files.get(ws, upload.id), null, 'the image file is gone');
  assert.is(await w.server.app.records.leads.count({ workspaceId: ws }), 0);
  const events = await w.server.app.events.collection.find({ workspaceId: ws });
  assert.not.ok(events.some((e) => JSON.stringify(e.data).includes('broken part') || JSON.stringify(e.data).includes(ready.visitorId)), 'no stored event keeps their words');
  assert.is((await w.server.request('GET', `/api/v1/conversations/${conv.conversationId}`, { headers: w.owner.headers })).status, 404);
  assert.is((await w.server.request('DELETE', `/api/v1/visitors/${ready.visitorId}`, { headers: privacy.headers })).status, 404);
});

test('a lead added by hand or by API (no visitor, no conversation) is found by its e-mail, whatever the case, and can be erased', async () => {
  const added = await w.server.request('POST', '/api/v1/leads', { body: { botId: w.botId, fields: { name: 'Hank', email: 'Hank.Hand@Example.com' } }, headers: w.owner.headers });
  assert.is(added.status, 201);
  assert.is(added.body.visitorId, null);
  const found = await get('/api/v1/visitors?email=hank.hand@example.com');
  assert.is(found.status, 200);
  assert.equal(found.body.items, [], 'no visitor holds it');
  assert.equal(found.body.leads.map((l: { id: string }) => l.id), [added.body.id], 'the lead is named, so there is something to export and erase');
  assert.is(found.body.leads[0].fields.email, 'Hank.Hand@Example.com');
  assert.equal((await get('/api/v1/visitors?email=HANK.HAND@example.com')).body.leads.length, 1);
  assert.is((await w.server.request('DELETE', `/api/v1/leads/${added.body.id}`, { headers: w.owner.headers })).status, 204);
  assert.equal((await get('/api/v1/visitors?email=hank.hand@example.com')).body, { items: [], leads: [] });
});

test.run();
