import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closePool } from '../../workers/pool.js';
import { startChatWorld } from './helpers.js';

async function upload(w: Awaited<ReturnType<typeof startChatWorld>>, token: string, body: Buffer) {
  const res = await w.server.fetch(`/widget/v1/uploads?botId=${w.botId}&visitorToken=${encodeURIComponent(token)}`, {
    method: 'POST', body: new Uint8Array(body), headers: { 'content-type': 'image/png' },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

test('an uploaded image is checked, resized to 1568 px, sent to the model and kept with the conversation', async () => {
  const w = await startChatWorld({ kind: 'openai', config: { vision: { uploads: { maxPerMessage: 1 } } } });
  try {
    const v = await w.visitor();
    const png = await sharp({ create: { width: 3000, height: 1000, channels: 3, background: '#ff0000' } }).png().toBuffer();
    const up = await upload(w, v.ready.visitorToken, png);
    assert.is(up.status, 201);
    assert.is(up.body.width, 1568);
    assert.is(up.body.mimeType, 'image/png');

    const notImage = await upload(w, v.ready.visitorToken, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'));
    assert.is(notImage.status, 422);
    const badToken = await upload(w, 'v1.vis_x.nope', png);
    assert.is(badToken.status, 401);

    v.say('unknown', { attachments: [up.body.id, 'att_other'] });
    assert.match((await v.next('error')).message, /att_other not found/);
    const second = await upload(w, v.ready.visitorToken, png);
    v.say('too many', { attachments: [up.body.id, second.body.id] });
    assert.match((await v.next('error')).message, /at most 1 images/);

    v.say('What is this?', { attachments: [up.body.id] });
    const mine = await v.next('message', (f) => f.message.role === 'user');
    assert.equal(mine.message.attachments, [{ id: up.body.id, mimeType: 'image/png', width: 1568, height: 523 }]);
    await v.reply();
    const user = w.fake.lastBody('/chat/completions').messages.find((m: any) => m.role === 'user');
    assert.ok(Array.isArray(user.content));
    assert.match(user.content.find((p: any) => p.type === 'image_url').image_url.url, /^data:image\/png;base64,/);

    const file = await w.server.fetch(`/api/v1/attachments/${up.body.id}`, { headers: w.owner.headers });
    assert.is(file.status, 200);
    assert.is(file.headers.get('content-type'), 'image/png');
    assert.is(file.headers.get('x-content-type-options'), 'nosniff');

    const conv = await w.server.request('GET', `/api/v1/conversations/${mine.conversationId}`, { headers: w.owner.headers });
    assert.is(conv.body.messages[0].attachments[0].id, up.body.id);

    // Deleting the conversation deletes its files.
    const del = await w.server.request('DELETE', `/api/v1/conversations/${mine.conversationId}`, { headers: w.owner.headers });
    assert.is(del.status, 204);
    assert.is((await w.server.fetch(`/api/v1/attachments/${up.body.id}`, { headers: w.owner.headers })).status, 404);
    assert.is((await w.server.request('GET', `/api/v1/conversations/${mine.conversationId}`, { headers: w.owner.headers })).status, 404);
    await v.close();
  } finally {
    await w.close();
  }
});

test('uploads past uploadsPerHour get rate_limited', async () => {
  const w = await startChatWorld({ config: { security: { rateLimits: { uploadsPerHour: 1 } } } });
  try {
    const v = await w.visitor();
    const png = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#00ff00' } }).png().toBuffer();
    assert.is((await upload(w, v.ready.visitorToken, png)).status, 201);
    const second = await upload(w, v.ready.visitorToken, png);
    assert.is(second.status, 429);
    assert.ok(second.headers.get('retry-after'));
    await v.close();
  } finally {
    await w.close();
  }
});

test('a long conversation is compacted: summary first, then recent messages; the transcript keeps all', async () => {
  const w = await startChatWorld({ kind: 'gemini', config: { brain: { compactAtTokens: 8000 }, security: { maxMessageChars: 20000 } } });
  try {
    const v = await w.visitor();
    for (let i = 0; i < 3; i++) {
      w.fake.script({ text: `answer ${i}` });
      v.say(`question ${i} ` + 'lorem ipsum '.repeat(700));
      await v.reply();
    }
    // This reply needs compaction: first the summary call, then the reply.
    w.fake.script([{ text: 'SUMMARY: visitor asked questions 0 to 2' }, { text: 'final answer' }]);
    v.say('and now? ' + 'lorem ipsum '.repeat(700));
    const { message } = await v.reply();
    assert.is(message.text, 'final answer');
    const body = w.fake.lastBody(':streamGenerateContent');
    const system = JSON.stringify(body.systemInstruction ?? body.system_instruction ?? body.config?.systemInstruction);
    assert.match(system, /SUMMARY: visitor asked questions 0 to 2/);
    const sentText = JSON.stringify(body.contents);
    assert.not.match(sentText, /question 0 /);
    assert.match(sentText, /and now\?/);
    const all = await w.server.app.store.collection<any>('messages').find({ workspaceId: w.workspaceId });
    assert.is(all.length, 8);
    await v.close();
  } finally {
    await w.close();
  }
});

test.after(async () => { await closePool(); });
test.run();
