import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ScriptedTurn } from '../fakes/script.js';
import { startChatWorld, type ChatWorld, type Visitor } from './helpers.js';
import { until } from '../helpers/until.js';

// compactAtTokens 8000 (the least allowed): the background summary starts past 6,400 estimated tokens. A 14,000
// character question is about 3,500 tokens, so two of them cross the watermark and three would cross the limit.
const CONFIG = { brain: { compactAtTokens: 8000 }, security: { maxMessageChars: 20000 } };
const question = (label: string, chars = 14000) => `${label} ` + 'lorem ipsum '.repeat(Math.floor(chars / 12));

const completions = (w: ChatWorld) => w.fake.requests.filter((r) => r.path.endsWith('/chat/completions'));
const isSummaryCall = (body: unknown) => JSON.stringify(body).includes('You condense chat transcripts');
const summaryCalls = (w: ChatWorld) => completions(w).filter((r) => isSummaryCall(r.body)).length;
const conversationRecord = async (w: ChatWorld, id: string) => (await w.server.app.store.collection<any>('conversations').findOne({ _id: id }, { crossWorkspace: true }))!;
const storedMessages = (w: ChatWorld, id: string) => w.server.app.store.collection<any>('messages').find({ workspaceId: w.workspaceId, conversationId: id }, { sort: [['seq', 1]] });

/** No summary is being made for the conversation (its job settled, or its actor is gone). */
const summaryIdle = (w: ChatWorld, id: string) => until(() => !w.server.services.conversations.registry.peek(id)?.s.summarizing, { message: 'the background summary to settle' });

/**
 * Two long turns: the second crosses the watermark, so once its answer is stored a summary starts in the
 * background and takes `summaryTurn`. Returns the conversation's id.
 */
async function twoLongTurns(w: ChatWorld, v: Visitor, summaryTurn: ScriptedTurn): Promise<string> {
  w.fake.script({ text: 'answer 0' });
  v.say(question('question 0'));
  const { conversationId } = await v.next('conversation');
  await v.reply();
  assert.is(summaryCalls(w), 0, 'under the watermark nothing is condensed');
  w.fake.script([{ text: 'answer 1' }, summaryTurn]);
  v.say(question('question 1'));
  await v.reply();
  return conversationId;
}

test('the turn after a long one makes one model call: its summary was made in the background, stored and used', async () => {
  const w = await startChatWorld({ config: CONFIG });
  try {
    const v = await w.visitor();
    const id = await twoLongTurns(w, v, { text: 'SUMMARY: the visitor asked question 0' });
    await until(async () => (await conversationRecord(w, id)).summary !== null, { message: 'the summary to be stored' });
    const conv = await conversationRecord(w, id);
    assert.equal(conv.summary, { text: 'SUMMARY: the visitor asked question 0', uptoSeq: 1 });

    const before = completions(w).length;
    w.fake.script({ text: 'answer 2' });
    v.say(question('question 2'));
    const { message } = await v.reply();
    assert.is(message.text, 'answer 2');
    const turn = completions(w).slice(before);
    assert.is(turn.length, 1, 'the reply is the only model call of this turn');
    const sent = JSON.stringify(turn[0].body.messages);
    assert.match(sent, /SUMMARY: the visitor asked question 0/);
    assert.not.match(sent, /question 0 lorem/, 'what the summary covers is not sent again');
    assert.match(sent, /question 1 lorem/);
    assert.match(sent, /question 2 lorem/);

    // The summary's tokens and cost ride on the next stored reply, as an inline summary's do.
    const [, , summaryUse, replyUse] = w.fake.usages;
    const stored = (await storedMessages(w, id)).find((m) => m._id === message.id);
    assert.equal(stored.usage, { inputTokens: summaryUse.inputTokens + replyUse.inputTokens, outputTokens: summaryUse.outputTokens + replyUse.outputTokens });
    const all = await storedMessages(w, id);
    assert.is(all.length, 6, 'the transcript keeps every message');
    const day = (await w.server.app.store.collection<any>('usage_daily').find({ workspaceId: w.workspaceId }))[0];
    const total = all.reduce((s, m) => s + (m.costUsd ?? 0), 0);
    assert.ok(total > 0);
    assert.ok(Math.abs(day.costUsd - total) < 1e-12, 'the day counts what the replies and the summary cost');
    assert.ok(Math.abs((await conversationRecord(w, id)).costUsd - total) < 1e-12);
    await v.close();
  } finally {
    await w.close();
  }
});

test('a turn that jumps past the limit with no summary ready compacts inline, as before', async () => {
  const w = await startChatWorld({ config: CONFIG });
  try {
    const v = await w.visitor();
    w.fake.script({ text: 'answer 0' });
    v.say(question('question 0'));
    const { conversationId } = await v.next('conversation');
    await v.reply();
    const before = completions(w).length;
    w.fake.script([{ text: 'SUMMARY: inline' }, { text: 'answer 1' }]);
    v.say(question('question 1', 19000));
    const { message } = await v.reply();
    assert.is(message.text, 'answer 1');
    const turn = completions(w).slice(before);
    assert.is(turn.length, 2, 'the summary, then the reply');
    assert.ok(isSummaryCall(turn[0].body));
    assert.match(JSON.stringify(turn[1].body.messages), /SUMMARY: inline/);
    assert.is((await conversationRecord(w, conversationId)).summary.text, 'SUMMARY: inline');
    await v.close();
  } finally {
    await w.close();
  }
});

test('a reply that needs a summary while one is being made waits for it instead of making a second', async () => {
  const w = await startChatWorld({ config: CONFIG });
  try {
    const v = await w.visitor();
    const id = await twoLongTurns(w, v, { text: 'SUMMARY: slow', delayMs: 600 });
    // Sent at once: with question 2 the history is past the limit while the summary is still on its way.
    w.fake.script({ text: 'answer 2' });
    v.say(question('question 2'));
    const { message } = await v.reply();
    assert.is(message.text, 'answer 2');
    assert.is(summaryCalls(w), 1, 'one summary for the conversation, not one per caller');
    assert.match(JSON.stringify(completions(w).at(-1)!.body.messages), /SUMMARY: slow/);
    assert.is((await conversationRecord(w, id)).summary.text, 'SUMMARY: slow');
    await v.close();
  } finally {
    await w.close();
  }
});

test('a background summary that fails is only logged: the visitor gets the next answer, compacted inline', async () => {
  const w = await startChatWorld({ config: CONFIG });
  try {
    const v = await w.visitor();
    const id = await twoLongTurns(w, v, { error: { status: 400, message: 'summary refused' } });
    // The reply is shown before the summary starts: wait for its call, then for it to settle.
    await until(() => summaryCalls(w) === 1, { message: 'the summary call' });
    await summaryIdle(w, id);
    assert.is((await conversationRecord(w, id)).summary, null);

    const before = completions(w).length;
    w.fake.script([{ text: 'SUMMARY: inline after the failure' }, { text: 'answer 2' }]);
    v.say(question('question 2', 19000));
    const { message } = await v.reply();
    assert.is(message.text, 'answer 2');
    assert.is(completions(w).length - before, 2);
    assert.not.ok(v.frames.some((f) => f.t === 'error'), 'no error reaches the visitor');
    const all = await storedMessages(w, id);
    assert.not.ok(all.some((m) => m.role === 'system_event'), 'no "something went wrong" line');
    assert.is((await conversationRecord(w, id)).summary.text, 'SUMMARY: inline after the failure');
    await v.close();
  } finally {
    await w.close();
  }
});

test('a conversation that ends while its summary is being made gets no summary, and none is started after', async () => {
  const w = await startChatWorld({ config: CONFIG });
  try {
    const v = await w.visitor();
    const id = await twoLongTurns(w, v, { text: 'SUMMARY: too late', delayMs: 2000 });
    await until(() => summaryCalls(w) === 1, { message: 'the summary call' });
    const closed = await w.server.request('POST', `/api/v1/conversations/${id}/close`, { headers: w.owner.headers });
    assert.is(closed.status, 200);
    await v.next('ended');
    await summaryIdle(w, id);
    const conv = await conversationRecord(w, id);
    assert.is(conv.status, 'ended');
    assert.is(conv.summary, null);
    assert.is(summaryCalls(w), 1);
    await v.close();
  } finally {
    await w.close();
  }
});

test('a takeover drops the summary being made', async () => {
  const w = await startChatWorld({ config: CONFIG });
  try {
    const v = await w.visitor();
    const id = await twoLongTurns(w, v, { text: 'SUMMARY: dropped', delayMs: 2000 });
    await until(() => summaryCalls(w) === 1, { message: 'the summary call' });
    await w.server.services.conversations.ask(id, { type: 'takeover', userId: 'usr_1', userName: 'Tom' });
    await summaryIdle(w, id);
    assert.is((await conversationRecord(w, id)).summary, null);
    await v.close();
  } finally {
    await w.close();
  }
});

test.run();
