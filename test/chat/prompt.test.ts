import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BotConfigSchema } from '../../src/bots/config/index.js';
import { startChatWorld, type ChatWorld } from './helpers.js';

/** Publishes `identity` over the world's bot, chats once as a new visitor, and returns the system prompt the model got. */
async function systemPromptWith(w: ChatWorld, identity: Record<string, unknown>): Promise<string> {
  const { app } = w.server;
  const bot: any = await app.store.collection('bots').findById(w.workspaceId, w.botId);
  const config = BotConfigSchema.parse({ ...bot.published.config, identity: { ...bot.published.config.identity, ...identity } });
  await w.setBot({ 'published.config': config, draft: config, updatedAt: bot.updatedAt + 1 });
  const v = await w.visitor();
  v.say('hello');
  await v.reply();
  await v.close();
  const messages = w.fake.lastBody('/chat/completions').messages;
  assert.is(messages[0].role, 'system');
  return messages[0].content;
}

test('the personality preset, guardrails and language policy reach the model in the system prompt', async () => {
  const w = await startChatWorld();
  try {
    const fixed = await systemPromptWith(w, {
      agentName: 'Greta', personality: { preset: 'professional', text: 'Sign off with "Kind regards".' },
      guardrails: 'Never discuss competitors\' prices.', language: 'de', languagePolicy: 'fixed',
    });
    assert.match(fixed, /You are Greta/);
    assert.match(fixed, /Be courteous, precise and professional\. Avoid slang and jokes\. Sign off with "Kind regards"\./);
    assert.match(fixed, /Never do or discuss the following[^\n]*\nNever discuss competitors' prices\./);
    assert.match(fixed, /Always reply in the language with tag "de", whatever language the visitor writes in\./);
    assert.not.match(fixed, /Reply in the language the visitor writes in/);

    const matching = await systemPromptWith(w, { personality: { preset: 'concise', text: '' }, guardrails: '', language: 'fr', languagePolicy: 'match_visitor' });
    assert.match(matching, /Be brief and to the point/);
    assert.not.match(matching, /professional/);
    assert.not.match(matching, /Never do or discuss/);
    assert.match(matching, /Reply in the language the visitor writes in\. If it is unclear, use the language with tag "fr"\./);
    assert.not.match(matching, /Always reply in the language/);

    const custom = await systemPromptWith(w, { personality: { preset: 'custom', text: 'Talk like a pirate.' } });
    assert.match(custom, /Personality: Talk like a pirate\./);
  } finally {
    await w.close();
  }
});

test.run();
