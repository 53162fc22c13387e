import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startChatWorld, type ChatWorld } from '../chat/helpers.js';
import { startFakeSite, type FakeSite } from './fake-site.js';
import { ingestionIdle } from './helpers.js';

// The chat model's verdict on the excerpts it was given: a reply that used none of them makes the visitor's
// question a knowledge gap, even when the words of the question matched the documents.

let site: FakeSite;
let w: ChatWorld;
test.before(async () => {
  site = await startFakeSite();
  w = await startChatWorld();
  const r = await w.server.request('POST', '/api/v1/knowledge', { body: { kind: 'crawl', url: `${site.url}/guides/tomatoes.html`, settings: { maxDepth: 0 } }, headers: w.owner.headers });
  assert.is(r.status, 201, JSON.stringify(r.body));
  await ingestionIdle(w.server.app);
  const bot: any = await w.server.app.store.collection('bots').findById(w.workspaceId, w.botId);
  const c = bot.published.config;
  const config = { ...c, knowledge: { ...c.knowledge, sourceIds: [r.body.id], mode: 'both', topK: 3 }, behavior: { ...c.behavior, citations: true } };
  await w.setBot({ 'published.config': config, draft: config });
});
test.after(async () => { await w.close(); await site.close(); });

const gaps = async () => (await w.server.request('GET', '/api/v1/knowledge/gaps', { headers: w.owner.headers })).body.items as Array<{ question: string; count: number }>;

async function ask(question: string, reply: string) {
  const v = await w.visitor();
  w.fake.script([{ text: reply }]);
  v.say(question);
  const { message } = await v.reply();
  await v.close();
  return message;
}

test('a question the bot answered from the excerpts is not a gap', async () => {
  const message = await ask('How many hours of sun do tomatoes need?', 'Tomatoes want eight hours of direct sunlight a day.');
  // "How many" says nothing about the topic: were it a word the documents lack, half the question would be unknown to
  // them and the one-page knowledge base would give no excerpts.
  assert.ok(JSON.stringify(w.fake.lastBody('chat/completions').messages[0]).includes('Knowledge base excerpts'), 'the model was given excerpts');
  assert.ok(message.citations?.length, 'the reply cites the page');
  assert.equal(await gaps(), []);
});

test('a question whose excerpts the bot could not use is listed as a gap, once per ask', async () => {
  const question = 'Can I grow tomatoes on the moon?';
  const system = () => JSON.stringify(w.fake.lastBody('chat/completions').messages[0]);
  const message = await ask(question, 'I am sorry, I do not know that. Please ask our team by e-mail.');
  assert.ok(system().includes('Knowledge base excerpts'), 'the words matched: the model was given excerpts');
  assert.is(message.citations, undefined);
  assert.equal((await gaps()).map((g) => [g.question, g.count]), [[question, 1]]);
  await ask(question, 'Sorry, nothing about that here.');
  assert.equal((await gaps()).map((g) => [g.question, g.count]), [[question, 2]]);
});

test('a question with no relevant excerpt is counted once, not again for the reply', async () => {
  const question = 'Do you sell concert tickets?';
  await ask(question, 'I do not know, sorry.');
  const found = (await gaps()).find((g) => g.question === question);
  assert.is(found?.count, 1);
});

test.run();
