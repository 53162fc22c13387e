import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startChatWorld, type ChatWorld } from '../chat/helpers.js';
import { startFakeSite, type FakeSite } from './fake-site.js';
import { ingestionIdle } from './helpers.js';

/** A chat world whose bot knows a crawled page and the PDF of the fake site (search tool and auto excerpts). */
async function worldWithSiteKnowledge(site: FakeSite, behavior: Record<string, unknown>): Promise<ChatWorld> {
  const w = await startChatWorld();
  const add = async (body: unknown) => {
    const r = await w.server.request('POST', '/api/v1/knowledge', { body, headers: w.owner.headers });
    assert.is(r.status, 201, JSON.stringify(r.body));
    return r.body.id as string;
  };
  const crawl = await add({ kind: 'crawl', url: `${site.url}/guides/tomatoes.html`, settings: { maxDepth: 0 } });
  const pdf = await add({ kind: 'page', url: `${site.url}/handbook.pdf` });
  await ingestionIdle(w.server.app);
  const bot: any = await w.server.app.store.collection('bots').findById(w.workspaceId, w.botId);
  const c = bot.published.config;
  const config = { ...c, knowledge: { ...c.knowledge, sourceIds: [crawl, pdf], mode: 'both', topK: 3 }, behavior: { ...c.behavior, ...behavior } };
  await w.setBot({ 'published.config': config, draft: config });
  return w;
}

const SCRIPT = [
  { toolCalls: [{ id: 'call_sun', name: 'search_knowledge', arguments: { query: 'tomatoes sunlight hours' } }] },
  { toolCalls: [{ id: 'call_warranty', name: 'search_knowledge', arguments: { query: 'spade warranty years' } }] },
  { text: 'Tomatoes want eight hours of sun, and spades carry a fifteen-year warranty.' },
];

let site: FakeSite;
test.before(async () => { site = await startFakeSite(); });
test.after(async () => { await site.close(); });

test('the agent answers from a crawled page and a PDF, and the reply cites both', async () => {
  const w = await worldWithSiteKnowledge(site, { citations: true });
  try {
    const v = await w.visitor();
    w.fake.script(SCRIPT);
    v.say('How much sun do tomatoes need, and how long is the warranty on a spade?');
    const { message } = await v.reply();
    assert.is(message.text, 'Tomatoes want eight hours of sun, and spades carry a fifteen-year warranty.');
    const cited = new Map<string, string>(message.citations.map((c: any) => [c.title, c.url]));
    assert.is(cited.get('Growing tomatoes'), `${site.url}/guides/tomatoes.html`);
    assert.is(cited.get('Example Gardens handbook'), `${site.url}/handbook.pdf`);
    const tools = w.fake.lastBody('chat/completions').messages.filter((m: any) => m.role === 'tool').map((m: any) => String(m.content));
    assert.ok(tools[0].includes('eight hours of direct sunlight'), tools[0]);
    assert.ok(tools[1].includes('fifteen-year warranty'), tools[1]);
    await v.close();
  } finally { await w.close(); }
});

test('with behavior.citations off no citations reach the widget', async () => {
  const w = await worldWithSiteKnowledge(site, { citations: false });
  try {
    const v = await w.visitor();
    w.fake.script(SCRIPT);
    v.say('How much sun do tomatoes need, and how long is the warranty on a spade?');
    const { message } = await v.reply();
    assert.ok(message.text.includes('fifteen-year warranty'));
    assert.is(message.citations, undefined);
    assert.not.ok(v.frames.some((f) => JSON.stringify(f).includes('"citations"')), 'no frame carries citations');
    await v.close();
  } finally { await w.close(); }
});

test('a reply that used one of three excerpts cites only that document', async () => {
  const w = await startChatWorld();
  try {
    const ids: string[] = [];
    for (const path of ['/returns.html', '/shipping.html', '/guides/watering.html']) {
      const r = await w.server.request('POST', '/api/v1/knowledge', { body: { kind: 'page', url: `${site.url}${path}` }, headers: w.owner.headers });
      assert.is(r.status, 201, JSON.stringify(r.body));
      ids.push(r.body.id);
    }
    await ingestionIdle(w.server.app);
    const bot: any = await w.server.app.store.collection('bots').findById(w.workspaceId, w.botId);
    const c = bot.published.config;
    const config = { ...c, knowledge: { ...c.knowledge, sourceIds: ids, mode: 'auto', topK: 3 }, behavior: { ...c.behavior, citations: true } };
    await w.setBot({ 'published.config': config, draft: config });
    const v = await w.visitor();
    w.fake.script([{ text: 'Yes: unopened seed packets can be returned within thirty days for a full refund.' }]);
    v.say('Can I return plants or seeds, how do orders ship, and when should I water my plants?');
    const { message } = await v.reply();
    const system = JSON.stringify(w.fake.lastBody('chat/completions').messages[0]);
    for (const given of ['Returns policy', 'Shipping', 'Watering schedule']) assert.ok(system.includes(given), `${given} was given to the model`);
    assert.equal(message.citations.map((x: any) => x.title), ['Returns policy']);
    assert.not.ok(JSON.stringify(message.citations).includes('excerpt'), 'the excerpt text is not stored with the citation');
    await v.close();
  } finally { await w.close(); }
});

test('a reply that used none of the excerpts cites nothing', async () => {
  const w = await worldWithSiteKnowledge(site, { citations: true });
  try {
    const v = await w.visitor();
    w.fake.script([{ text: 'I am sorry, I do not know that. Please ask our team by e-mail.' }]);
    v.say('How much sun do tomatoes need?');
    const { message } = await v.reply();
    assert.is(message.citations, undefined);
    await v.close();
  } finally { await w.close(); }
});

test.run();
