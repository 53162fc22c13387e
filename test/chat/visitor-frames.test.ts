import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { leadFormFrame } from '../../src/leads/form.js';
import { startChatWorld } from './helpers.js';

test('with leadCapture.when start the form comes first, and sending it opens the conversation and saves the lead', async () => {
  const w = await startChatWorld({ config: { behavior: { leadCapture: { enabled: true, when: 'start' } } } });
  try {
    const v = await w.visitor();
    const form = await v.next('lead_form');
    assert.is(form.reason, 'start');
    assert.is(form.conversationId, null);
    assert.equal(form.fields.map((f: any) => f.key), ['name', 'email']);
    v.send({ t: 'lead', fields: { name: 'Ada', email: 'not-an-email' } });
    const bad = await v.next('error');
    assert.is(bad.code, 'invalid');
    assert.match(bad.message, /email/);
    v.send({ t: 'lead', fields: { name: 'Ada', email: 'ada@example.com' } });
    const ok = await v.next('lead_ok');
    const leads = await w.server.request('GET', '/api/v1/leads', { headers: w.owner.headers });
    assert.is(leads.status, 200);
    const lead = leads.body.items.find((l: any) => l.id === ok.leadId);
    assert.ok(lead, JSON.stringify(leads.body));
    assert.equal(lead.fields, { name: 'Ada', email: 'ada@example.com' });
    assert.ok(v.frames.some((f) => f.t === 'conversation' && f.conversationId), 'the lead opened a conversation');
    await v.close();
  } finally { await w.close(); }
});

test('the visitor can ask for a person from the menu when handoff is on, and not when it is off', async () => {
  const w = await startChatWorld({ config: { behavior: { handoff: { enabled: true } } } });
  try {
    const v = await w.visitor();
    // Before any message: the request opens the conversation.
    v.send({ t: 'handoff', reason: 'I want a person' });
    // Nobody from the team has the live socket open: the offline text comes first, then the answer.
    const offline = await v.next('message', (f) => f.message.role === 'system_event');
    assert.match(offline.message.text, /away right now/);
    const h = await v.next('handoff');
    assert.type(h.handoffId, 'string');
    assert.is(h.available, false);
    assert.ok(v.frames.some((f) => f.t === 'conversation' && f.conversationId), 'the handoff opened a conversation');
    await v.close();
  } finally { await w.close(); }
  const off = await startChatWorld();
  try {
    const v = await off.visitor();
    off.fake.script([{ text: 'Hello!' }]);
    v.say('hi');
    await v.reply();
    v.send({ t: 'handoff' });
    const e = await v.next('error');
    assert.is(e.code, 'forbidden');
    await v.close();
  } finally { await off.close(); }
});

test('a lead frame is refused while lead capture is off, unless an offline flow showed the form', async () => {
  const w = await startChatWorld();
  try {
    const v = await w.visitor();
    const fields = { name: 'Ada', email: 'ada@example.com' };
    v.send({ t: 'lead', fields });
    assert.is((await v.next('error')).code, 'forbidden');
    assert.not.ok(v.frames.some((f) => f.t === 'conversation'), 'no conversation was opened for it');
    v.say('hello');
    const { conversationId } = await v.next('conversation');
    await v.reply();
    v.send({ t: 'lead', fields });
    const refused = await v.next('error');
    assert.is(refused.code, 'forbidden');
    assert.match(refused.message, /leadCapture/);
    // An offline flow (handoff offlineAction lead_form) shows the form even with lead capture off.
    w.server.services.conversations.pushToVisitor(conversationId, leadFormFrame(conversationId, 'offline', [
      { key: 'name', label: 'Name', type: 'text', required: true }, { key: 'email', label: 'Email', type: 'email', required: true },
    ]));
    await v.next('lead_form');
    v.send({ t: 'lead', fields });
    await v.next('lead_ok');
    assert.is((await w.server.app.store.collection('leads').find({ workspaceId: w.workspaceId })).length, 1);
    await v.close();
  } finally { await w.close(); }
});

test.run();
