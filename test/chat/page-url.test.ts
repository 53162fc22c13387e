import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { webPageUrl } from '../../src/chat/widget-socket.js';
import { startChatWorld, type ChatWorld } from './helpers.js';

// Issue 40 item 10: a visitor-supplied pageUrl that is not http(s) (javascript:, data:) is never stored, so it
// can never become a link in the inbox; http(s) addresses are kept as given.

let w: ChatWorld;
test.before(async () => { w = await startChatWorld(); });
test.after(async () => { await w.close(); });

test('only http(s) page addresses are kept', () => {
  assert.is(webPageUrl('https://shop.example/help?q=1'), 'https://shop.example/help?q=1');
  assert.is(webPageUrl('HTTP://shop.example/'), 'HTTP://shop.example/');
  for (const bad of ['javascript:alert(document.cookie)', ' javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:x', '//evil.example', '']) {
    assert.is(webPageUrl(bad), '', bad);
  }
});

test('a conversation opened from a javascript: pageUrl has no page address; its title stays', async () => {
  const v = await w.visitor({ pageUrl: 'javascript:fetch("/api/v1/tokens")', pageTitle: 'Help' });
  w.fake.script([{ text: 'Hello!' }]);
  v.say('Hi');
  await v.reply(15_000);
  const id = v.frames.find((f: any) => f.t === 'conversation').conversationId;
  const conv = await w.server.request('GET', `/api/v1/conversations/${id}`, { headers: w.owner.headers });
  assert.is(conv.status, 200);
  const page = conv.body.page ?? conv.body.conversation?.page;
  assert.equal(page, { url: '', title: 'Help' });
});

test.run();
