import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FakeRealtime } from '../fakes/openai-realtime.js';
import { RATES, audioBytes, seen, speak, startVoice, startVoiceWorld, until } from './world.js';

const R = RATES.openai;

test('a tool call in voice runs on the server like in text; its result goes back to the engine and the answer is spoken', async () => {
  const w = await startVoiceWorld({ config: { behavior: { leadCapture: { enabled: true } } } });
  const realtime = (w.fake as unknown as { realtime: FakeRealtime }).realtime;
  try {
    realtime.hear('My name is Ada, ada@example.com');
    w.fake.script([
      { toolCalls: [{ id: 'call_lead', name: 'capture_lead', arguments: { name: 'Ada', email: 'ada@example.com' } }, { id: 'call_face', name: 'express', arguments: { mood: 'happy' } }] },
      { text: 'Thanks Ada, I saved your details.' },
    ]);
    const v = await w.visitor();
    await startVoice(v);
    const offered = realtime.connections[0].session.tools.map((t: any) => t.name);
    assert.ok(offered.includes('capture_lead') && offered.includes('express') && offered.includes('end_conversation'), offered.join());
    speak(v, R.input);
    // The tool shows as agent status, the face changes, then the spoken answer comes.
    await seen(v, 'status', (f) => f.state === 'tool');
    const face = await seen(v, 'face');
    assert.is(face.mood, 'happy');
    const item = await seen(v, 'voice_item');
    await until(() => audioBytes(v) > 0, { timeout: 5000, message: 'audio' });
    v.send({ t: 'voice_played', itemId: item.itemId, ms: 60_000 });
    const reply = await seen(v, 'message', (f) => f.message.id === item.messageId);
    assert.is(reply.message.text, 'Thanks Ada, I saved your details.');
    const outputs = realtime.sent('conversation.item.create').filter((e) => e.event.item.type === 'function_call_output').map((e) => e.event.item.call_id);
    assert.equal(outputs.sort(), ['call_face', 'call_lead']);
    // The lead is saved and the calls recorded, as in text.
    const leads = await w.server.request('GET', '/api/v1/leads', { headers: w.owner.headers });
    assert.is(leads.body.items[0].fields.email, 'ada@example.com');
    const conv = await w.server.request('GET', `/api/v1/conversations/${reply.conversationId}`, { headers: w.owner.headers });
    assert.equal(conv.body.toolCalls.map((c: any) => c.name).sort(), ['capture_lead', 'express']);
    await v.close();
  } finally {
    await w.close();
  }
});

test('a page tool in voice runs in the visitor\'s browser over the chat socket and its result reaches the engine', async () => {
  const w = await startVoiceWorld({ config: { tools: { client: { enabled: true, allow: '*' } } } });
  const realtime = (w.fake as unknown as { realtime: FakeRealtime }).realtime;
  try {
    w.fake.script([{ toolCalls: [{ id: 'call_cart', name: 'cart_total', arguments: {} }] }, { text: 'Your cart is 42 euros.' }]);
    const v = await w.visitor();
    v.send({ t: 'tools', tools: [{ name: 'cart_total', description: 'The total of the cart', parameters: { type: 'object', properties: {} } }] });
    await startVoice(v);
    assert.ok(realtime.connections[0].session.tools.some((t: any) => t.name === 'cart_total'), 'the page tool is offered to the engine');
    speak(v, R.input);
    const call = await seen(v, 'tool_call');
    assert.is(call.name, 'cart_total');
    v.send({ t: 'tool_result', callId: call.callId, content: '42 EUR' });
    await until(() => realtime.sent('conversation.item.create').some((e) => e.event.item.type === 'function_call_output' && e.event.item.output.includes('42 EUR')), { timeout: 5000, message: 'tool output to engine' });
    const item = await seen(v, 'voice_item');
    v.send({ t: 'voice_played', itemId: item.itemId, ms: 60_000 });
    const reply = await seen(v, 'message', (f) => f.message.id === item.messageId);
    assert.is(reply.message.text, 'Your cart is 42 euros.');
    await v.close();
  } finally {
    await w.close();
  }
});

test('end_conversation in voice: the goodbye is spoken, then the conversation and the voice session end', async () => {
  const w = await startVoiceWorld();
  const realtime = (w.fake as unknown as { realtime: FakeRealtime }).realtime;
  try {
    realtime.hear('That is all, bye');
    w.fake.script([{ text: 'Goodbye!', toolCalls: [{ name: 'end_conversation', arguments: {} }] }, { text: '' }]);
    const v = await w.visitor();
    await startVoice(v);
    speak(v, R.input);
    const item = await seen(v, 'voice_item');
    await until(() => audioBytes(v) > 0, { timeout: 5000, message: 'audio' });
    v.send({ t: 'voice_played', itemId: item.itemId, ms: 60_000 });
    const ended = await seen(v, 'ended', () => true, 8000);
    assert.is(ended.reason, 'agent_goodbye');
    const voiceEnded = await seen(v, 'voice', (f) => f.state === 'ended');
    assert.is(voiceEnded.reason, 'conversation_ended');
    await v.close();
  } finally {
    await w.close();
  }
});

test.run();
