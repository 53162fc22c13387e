import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hostedAgentRecordId } from '../../src/voice/hosted-agent.js';
import { startWorld, type World } from '../bots-api/setup.js';
import { Visitor } from '../chat/helpers.js';
import type { FakeSpeech } from '../fakes/speech.js';
import { audioBytes, seen, speak, startVoice, until } from './world.js';

const IN = 16_000;
const OUT = 24_000;

/** The real server with an OpenAI brain and a speech provider, and a bot published with a hosted voice agent. */
async function hostedWorld(config: Record<string, unknown> = {}) {
  const w: World = await startWorld();
  const speech = w.speech as FakeSpeech;
  const brain = await w.connectOpenAI();
  const voices = await w.connectSpeech();
  const bot = (await w.as('POST', '/api/v1/bots', { name: 'Mug shop' })).body;
  const draft = (await w.as('GET', `/api/v1/bots/${bot.id}`)).body;
  const patched = await w.as('PATCH', `/api/v1/bots/${bot.id}`, {
    revision: draft.revision,
    patch: {
      brain: { connectionId: brain.id, model: 'gpt-4o-mini' },
      behavior: { leadCapture: { enabled: true } },
      voice: { enabled: true, mode: 'hosted_agent', hostedAgent: { connectionId: voices.id, voice: 'voice_rachel' } },
      ...config,
    },
  });
  assert.is(patched.status, 200, JSON.stringify(patched.body));
  const published = await w.as('POST', `/api/v1/bots/${bot.id}/publish`);
  assert.is(published.status, 200, JSON.stringify(published.body));
  const rec: any = await w.server.app.store.collection('hosted_agents').findById(w.owner.workspaceId, hostedAgentRecordId(bot.id));
  const visitor = () => Visitor.open(`${w.server.url.replace('http', 'ws')}/widget/v1/chat?botId=${bot.id}`);
  return { w, speech, bot, agentId: rec.agentId as string, visitor };
}

/** Waits for the agent's next voice item and its audio, reports it played, and returns its stored message. */
async function heard(v: Visitor, after = -1): Promise<any> {
  const item = await seen(v, 'voice_item', (f) => v.frames.indexOf(f) > after, 8000);
  await until(() => audioBytes(v) > 0, { timeout: 5000, message: 'audio' });
  v.send({ t: 'voice_played', itemId: item.itemId, ms: 60_000 });
  return seen(v, 'message', (f) => f.message.id === item.messageId, 8000);
}

test('published with a hosted agent, the widget talks to it through the server: greeting, a spoken turn with a tool call, all stored as voice', async () => {
  const { w, speech, bot, agentId, visitor } = await hostedWorld({ welcome: { message: 'Hi, I am {{agent.name}}. What can I do for you?', speakGreeting: true } });
  try {
    const widget = (await w.as('GET', `/widget/v1/bots/${bot.id}/config`)).body;
    assert.is(widget.voice.enabled, true);
    const v = await visitor();
    const started = await startVoice(v);
    assert.is(started.state, 'listening');
    assert.equal([started.inputRate, started.outputRate], [IN, OUT]);
    const conversation = speech.agents.conversations[0];
    assert.is(conversation.agentId, agentId);
    // This conversation's own prompt (with the date) replaced the agent's; the agent greets, since nothing was said yet.
    assert.match(conversation.prompt, /You are Ava[\s\S]*Current date and time/);
    const greeting = await heard(v);
    assert.is(greeting.message.text, 'Hi, I am Ava. What can I do for you?');
    assert.is(greeting.message.modality, 'voice');

    speech.agents.hear('My name is Ada, ada@example.com');
    speech.script([
      { toolCalls: [{ id: 'toolu_lead', name: 'capture_lead', arguments: { name: 'Ada', email: 'ada@example.com' } }] },
      { text: 'Thanks Ada, I saved your details.' },
    ]);
    speak(v, IN);
    const user = await seen(v, 'message', (f) => f.message.role === 'user', 8000);
    assert.is(user.message.text, 'My name is Ada, ada@example.com');
    assert.is(user.message.modality, 'voice');
    await seen(v, 'status', (f) => f.state === 'tool');
    const reply = await heard(v, v.frames.indexOf(greeting));
    assert.is(reply.message.text, 'Thanks Ada, I saved your details.');

    // The tool ran here and its result went back to the agent.
    assert.equal(conversation.toolResults.map((r) => r.tool_call_id), ['toolu_lead']);
    const leads = await w.as('GET', '/api/v1/leads');
    assert.is(leads.body.items[0].fields.email, 'ada@example.com');
    const conv = await w.as('GET', `/api/v1/conversations/${user.conversationId}`);
    assert.equal(conv.body.messages.filter((m: any) => m.modality === 'voice').map((m: any) => [m.role, m.text]), [
      ['assistant', 'Hi, I am Ava. What can I do for you?'],
      ['user', 'My name is Ada, ada@example.com'],
      ['assistant', 'Thanks Ada, I saved your details.'],
    ]);
    assert.equal(conv.body.toolCalls.map((c: any) => c.name), ['capture_lead']);

    v.send({ t: 'voice_stop' });
    await seen(v, 'voice', (f) => f.state === 'ended');
    await until(() => !conversation.open, { timeout: 5000, message: 'the provider socket closed' });
    await v.close();
  } finally {
    await w.close();
  }
});

test('speaking over the hosted agent stops its voice and stores only what was heard; voice needs the agent to exist', async () => {
  const { w, speech, bot, visitor } = await hostedWorld();
  try {
    const v = await visitor();
    await startVoice(v);
    speech.agents.chunkIntervalMs = 40;
    speech.agents.hear('Tell me about your mugs', 'Stop, thanks');
    speech.script([{ text: 'Our mugs are handmade in Bergen from local clay and fired twice so they last for many years.' }, { text: 'Sure.' }]);
    speak(v, IN);
    const item = await seen(v, 'voice_item', () => true, 8000);
    await until(() => audioBytes(v) > 0.5 * OUT * 2, { timeout: 5000, message: 'half a second of the reply' });
    speak(v, IN, 300);
    const cut = await seen(v, 'voice_interrupt', (f) => f.itemId === item.itemId, 5000);
    v.send({ t: 'voice_played', itemId: cut.itemId, ms: 500 });
    const stored = await seen(v, 'message', (f) => f.message.id === item.messageId, 8000);
    // The provider's correction (the words it got out) cut again to what the widget played.
    const full = 'Our mugs are handmade in Bergen from local clay and fired twice so they last for many years.';
    const text: string = stored.message.text;
    assert.ok(text.endsWith('…') && full.startsWith(text.slice(0, -1)) && text.length < full.length / 2, text);
    assert.is(speech.agents.conversations[0].interruptions, 1);
    v.send({ t: 'voice_stop' });
    await seen(v, 'voice', (f) => f.state === 'ended');
    await v.close();

    // Without its agent record (never published with this connection), voice does not start and says why.
    await w.server.app.store.collection('hosted_agents').deleteOne({ workspaceId: w.owner.workspaceId, _id: hostedAgentRecordId(bot.id) });
    assert.is((await w.as('GET', `/widget/v1/bots/${bot.id}/config`)).body.voice.enabled, false);
    const v2 = await visitor();
    v2.send({ t: 'voice_start' });
    const refused = await v2.next('error');
    // The visitor reads a short line; the operator's reason goes to the bot's health (docs/voice.md).
    assert.is(refused.code, 'unavailable');
    assert.match(refused.message, /not available/);
    assert.not.match(refused.message, /provider|publish/);
    const health = await w.as('GET', `/api/v1/bots/${bot.id}/health`);
    assert.match(JSON.stringify(health.body), /has not been created at the provider yet; publish the bot/);
    await v2.close();
  } finally {
    await w.close();
  }
});

test.run();
