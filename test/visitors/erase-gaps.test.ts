import { test } from 'uvu';
import { until } from '../helpers/until.js';
import * as assert from 'uvu/assert';
import { recordGap } from '../../src/knowledge/gaps.js';
import { createToken, type TestToken } from '../helpers/auth.js';
import { chattingVisitor, startTeamWorld, type TeamWorld } from '../team/helpers.js';

let w: TeamWorld;
let privacy: TestToken;
test.before(async () => {
  w = await startTeamWorld();
  privacy = await createToken(w.server, w.owner, ['privacy:write']);
});
test.after(async () => { await w.stop(); });

/** A visitor in a conversation, and a helper recording an unanswered question as theirs (what the knowledge search does). */
async function asker(text: string) {
  const { visitor, conversationId } = await chattingVisitor(w, text);
  await visitor.close();
  const conv = await w.server.app.records.conversations.findById(w.owner.workspaceId, conversationId);
  const visitorId = conv!.visitorId;
  const ask = async (question: string) => {
    // Gaps list newest asked first, by the millisecond: asks in the same one would tie, so each gets its own.
    const at = w.server.app.clock.now();
    await until(() => w.server.app.clock.now() !== at, { interval: 1, message: 'the next millisecond' });
    return recordGap(w.server.app, w.owner.workspaceId, question, { botId: w.botId, conversationId, visitorId });
  };
  return { conversationId, visitorId, ask };
}

const gaps = async () => (await w.server.request('GET', '/api/v1/knowledge/gaps', { headers: w.owner.headers })).body.items as Array<{ question: string; count: number }>;

test('erasing a visitor takes their questions out of the knowledge gaps and out of every search', async () => {
  const erin = await asker('hello');
  const sam = await asker('hi there');
  await sam.ask('what are your opening hours');
  await erin.ask('Do you ship to Mars?');
  await erin.ask('What are your OPENING hours?!');
  assert.equal((await gaps()).map((g) => [g.question, g.count]), [['What are your OPENING hours?!', 2], ['Do you ship to Mars?', 1]]);
  const exported = await w.server.request('GET', `/api/v1/visitors/${erin.visitorId}/export`, { headers: privacy.headers });
  assert.equal(exported.body.knowledgeGapQuestions.map((q: { question: string }) => q.question), ['Do you ship to Mars?', 'What are your OPENING hours?!']);

  const erased = await w.server.request('DELETE', `/api/v1/visitors/${erin.visitorId}`, { headers: privacy.headers });
  assert.is(erased.status, 200);
  assert.equal((await gaps()).map((g) => [g.question, g.count]), [['what are your opening hours', 1]], 'only the other visitor\'s ask is left, in their words');
  assert.is((await w.server.request('GET', `/api/v1/visitors/${erin.visitorId}/export`, { headers: privacy.headers })).status, 404);
  assert.is((await w.server.request('GET', '/api/v1/visitors?userId=nobody', { headers: privacy.headers })).body.items.length, 0);
  const exportedSam = await w.server.request('GET', `/api/v1/visitors/${sam.visitorId}/export`, { headers: privacy.headers });
  assert.equal(exportedSam.body.knowledgeGapQuestions.map((q: { question: string }) => q.question), ['what are your opening hours']);
});

test('deleting a conversation takes the questions asked in it out of the knowledge gaps', async () => {
  const kim = await asker('hey');
  await kim.ask('Can I pay in seashells?');
  assert.ok((await gaps()).some((g) => g.question === 'Can I pay in seashells?'));
  const deleted = await w.server.request('DELETE', `/api/v1/conversations/${kim.conversationId}`, { headers: w.owner.headers });
  assert.ok(deleted.status === 200 || deleted.status === 204, `answered ${deleted.status}`);
  assert.not.ok((await gaps()).some((g) => g.question === 'Can I pay in seashells?'));
});

test.run();
