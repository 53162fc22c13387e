import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hostedAgentRecordId } from '../../src/voice/hosted-agent.js';
import type { FakeSpeech } from '../fakes/speech.js';
import { startWorld, type World } from '../bots-api/setup.js';

let w: World;
let speech: FakeSpeech;
let bot: any;
let voiceConn: any;

test.before(async () => {
  w = await startWorld();
  speech = w.speech as FakeSpeech;
  const brain = await w.connectOpenAI();
  voiceConn = await w.connectSpeech();
  bot = (await w.as('POST', '/api/v1/bots', { name: 'Shop assistant' })).body;
  await patch({
    brain: { connectionId: brain.id, model: 'gpt-4o-mini' },
    identity: { businessName: 'Nordic Mugs', instructions: 'Help with orders of {{business.name}}.', guardrails: 'No legal advice.', personality: { preset: 'concise' } },
    welcome: { message: 'Hello from {{agent.name}}!', speakGreeting: true },
    behavior: { leadCapture: { enabled: true } },
    voice: { enabled: true, mode: 'hosted_agent', hostedAgent: { connectionId: voiceConn.id, voice: 'voice_rachel', ttsModel: 'eleven_flash_v2_5', llm: 'gpt-4o-mini' } },
  });
});
test.after(async () => { await w.close(); });

async function patch(p: unknown) {
  const cur = (await w.as('GET', `/api/v1/bots/${bot.id}`)).body;
  const r = await w.as('PATCH', `/api/v1/bots/${bot.id}`, { revision: cur.revision, patch: p });
  assert.is(r.status, 200, JSON.stringify(r.body));
}
const publish = () => w.as('POST', `/api/v1/bots/${bot.id}/publish`);
const record = () => w.server.app.store.collection('hosted_agents').findById(w.owner.workspaceId, hostedAgentRecordId(bot.id)) as Promise<any>;
/** Requests to the agent API since `from` (index into the fake's request log), as "METHOD path". */
const agentCalls = (from: number) => speech.requests.slice(from).filter((r) => r.path.startsWith('/v1/convai/agents')).map((r) => `${r.method} ${r.path}`);

test('publishing creates the hosted agent from the bot\'s settings and keeps its id; the widget may then start voice', async () => {
  assert.is((await w.as('GET', `/widget/v1/bots/${bot.id}/config`)).body.voice?.enabled ?? false, false);
  const r = await publish();
  assert.is(r.status, 200, JSON.stringify(r.body));
  const rec = await record();
  const agent = speech.agents.agents.get(rec.agentId)!;
  assert.ok(agent, 'the agent exists at the provider');
  assert.is(rec.connectionId, voiceConn.id);
  const cc = agent.conversation_config;
  assert.is(cc.agent.first_message, 'Hello from Ava!');
  assert.is(cc.agent.language, 'en');
  assert.is(cc.agent.prompt.llm, 'gpt-4o-mini');
  assert.is(cc.agent.prompt.max_tokens, 2048);
  assert.match(cc.agent.prompt.prompt, /You are Ava, Virtual assistant for Nordic Mugs/);
  assert.match(cc.agent.prompt.prompt, /Be brief and to the point/);
  assert.match(cc.agent.prompt.prompt, /Instructions:\nHelp with orders of Nordic Mugs\./);
  assert.match(cc.agent.prompt.prompt, /No legal advice\./);
  assert.match(cc.agent.prompt.prompt, /spoken aloud/);
  assert.not.match(cc.agent.prompt.prompt, /Current date and time/);
  assert.equal(cc.tts, { voice_id: 'voice_rachel', model_id: 'eleven_flash_v2_5', agent_output_audio_format: 'pcm_24000' });
  assert.equal(cc.asr, { user_input_audio_format: 'pcm_16000' });
  assert.is(cc.conversation.max_duration_seconds, 900);
  assert.ok(cc.conversation.client_events.includes('interruption'));
  const tools = cc.agent.prompt.tools;
  assert.ok(tools.every((t: any) => t.type === 'client' && t.expects_response === true), JSON.stringify(tools));
  assert.ok(['capture_lead', 'end_conversation', 'express'].every((n) => tools.some((t: any) => t.name === n)), tools.map((t: any) => t.name).join());
  assert.equal(agent.platform_settings.auth, { enable_auth: true });
  assert.equal(agent.platform_settings.overrides.conversation_config_override.agent, { prompt: { prompt: true }, first_message: true, language: true });
  const widget = (await w.as('GET', `/widget/v1/bots/${bot.id}/config`)).body;
  assert.is(widget.voice.enabled, true);
  assert.is(widget.voice.mode, 'hosted_agent');
});

test('a publish that changes none of the agent\'s settings leaves it alone; a changed voice or prompt updates the same agent', async () => {
  const { agentId } = await record();
  let from = speech.requests.length;
  await patch({ welcome: { suggestedPrompts: ['Track my order'] } });
  assert.is((await publish()).status, 200);
  assert.equal(agentCalls(from), [`GET /v1/convai/agents/${agentId}`]);
  from = speech.requests.length;
  await patch({ voice: { hostedAgent: { voice: 'voice_hans' } }, identity: { instructions: 'Help with orders and returns.' } });
  assert.is((await publish()).status, 200);
  assert.equal(agentCalls(from), [`PATCH /v1/convai/agents/${agentId}`]);
  const agent = speech.agents.agents.get(agentId)!;
  assert.is(agent.conversation_config.tts.voice_id, 'voice_hans');
  assert.match(agent.conversation_config.agent.prompt.prompt, /Help with orders and returns\./);
  assert.is((await record()).agentId, agentId);
});

test('a setting the provider refuses fails the publish with 422 naming it and the provider\'s words; nothing changes', async () => {
  const before = await record();
  const version = (await w.as('GET', `/api/v1/bots/${bot.id}`)).body.published.version;
  const cases: Array<[unknown, string, RegExp]> = [
    [{ voice: { hostedAgent: { llm: 'gpt-9-ultra' } } }, 'voice.hostedAgent.llm', /refused the hosted agent: Input should be 'gpt-4o-mini'/],
    [{ identity: { language: 'de' }, voice: { hostedAgent: { ttsModel: 'eleven_turbo_v2' } } }, 'voice.hostedAgent.ttsModel', /Non-english Agents must use turbo or flash v2_5/],
  ];
  for (const [change, path, words] of cases) {
    await patch({ identity: { language: 'en' }, voice: { hostedAgent: { voice: 'voice_hans', ttsModel: 'eleven_flash_v2_5', llm: 'gpt-4o-mini' } } });
    await patch(change);
    const r = await publish();
    assert.is(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.error.details.map((p: any) => p.path), [path]);
    assert.match(r.body.error.details[0].message, words);
    assert.match(r.body.error.message, new RegExp(`^the draft cannot be published: ${path.replace(/\./g, '\\.')}: the speech provider refused`));
  }
  assert.is((await w.as('GET', `/api/v1/bots/${bot.id}`)).body.published.version, version, 'nothing was published');
  assert.equal(await record(), before);
  assert.is(speech.agents.agents.get(before.agentId)!.conversation_config.tts.voice_id, 'voice_hans');
  await patch({ identity: { language: 'en' }, voice: { hostedAgent: { voice: 'voice_hans', ttsModel: 'eleven_flash_v2_5', llm: 'gpt-4o-mini' } } });
});

test('a voice the connection does not list is refused before the provider is asked to change the agent', async () => {
  const before = await record();
  await patch({ voice: { hostedAgent: { voice: 'voice_nobody' } } });
  const from = speech.requests.length;
  const r = await publish();
  assert.is(r.status, 422, JSON.stringify(r.body));
  assert.equal(r.body.error.details, [{
    path: 'voice.hostedAgent.voice',
    message: `Voices has no voice voice_nobody; choose one of the voices GET /api/v1/providers/${voiceConn.id}/voices lists: voice_rachel (Rachel), voice_hans (Hans), voice_plain (Plain)`,
  }]);
  assert.equal(agentCalls(from), [], 'the agent was not touched');
  assert.equal(await record(), before);
  await patch({ voice: { hostedAgent: { voice: 'voice_hans' } } });
});

test('a refused key names the connection; a provider that fails answers 502 and publishes nothing', async () => {
  await patch({ voice: { hostedAgent: { voice: 'voice_rachel' } } });
  speech.failNext('/v1/convai/agents', 401, 'Invalid API key');
  let r = await publish();
  assert.is(r.status, 422);
  assert.equal(r.body.error.details, [{ path: 'voice.hostedAgent.connectionId', message: 'the speech provider refused the key of Voices (401: Invalid API key); connect it again with a key that may manage agents' }]);
  speech.failNext('/v1/convai/agents', 503, 'overloaded');
  r = await publish();
  assert.is(r.status, 502);
  assert.match(r.body.error.message, /^voice\.hostedAgent\.connectionId: the hosted agent could not be saved at Voices: the speech provider failed \(503\): overloaded; publish again in a moment$/);
  assert.is(speech.agents.agents.get((await record()).agentId)!.conversation_config.tts.voice_id, 'voice_hans');
  assert.is((await publish()).status, 200);
});

test('an emptied model makes a new agent with the provider\'s default and removes the old one once published', async () => {
  const old = (await record()).agentId;
  await patch({ voice: { hostedAgent: { llm: '' } } });
  const from = speech.requests.length;
  assert.is((await publish()).status, 200);
  const now = (await record()).agentId;
  assert.is.not(now, old);
  assert.equal(agentCalls(from), ['POST /v1/convai/agents/create', `DELETE /v1/convai/agents/${old}`]);
  assert.not.ok(speech.agents.agents.has(old));
  assert.not.ok('llm' in speech.agents.agents.get(now)!.conversation_config.agent.prompt);
});

test('an agent deleted at the provider is made again by the next publish', async () => {
  const old = (await record()).agentId;
  speech.agents.agents.delete(old);
  // An unchanged draft is not published again (409), so the next publish carries a change.
  await patch({ identity: { instructions: 'Help with orders, returns and gift cards.' } });
  assert.is((await publish()).status, 200);
  const now = (await record()).agentId;
  assert.is.not(now, old);
  assert.ok(speech.agents.agents.has(now));
});

test('deleting the bot removes its hosted agent at the provider', async () => {
  const { agentId } = await record();
  assert.is((await w.as('DELETE', `/api/v1/bots/${bot.id}`)).status, 204);
  assert.not.ok(speech.agents.agents.has(agentId));
  assert.is(await record(), null);
});

test.run();
