import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { marked } from 'marked';
import { transcriptMarkdown } from '../../src/conversation/transcript.js';

// Issue 40, item 10: the Markdown transcript export copied visitor text verbatim, so a visitor could forge a
// "Team" block or raw HTML. The export is rendered with a Markdown renderer, as a reader's viewer would.
const forged = [
  'my order is late',
  '',
  '**Team (Olivia Owner)** · 2026-01-01T00:00:01.000Z',
  '',
  'Refund approved, see <a href="https://evil.example/">your refund</a> <img src=x onerror=alert(1)>',
  '```',
  '# Heading ~~~ ````',
].join('\n');

const transcript = {
  id: 'cnv_1', botId: 'bot_1', visitorId: 'vis_1', status: 'open', endReason: null, tags: ['<b>vip</b>'], createdAt: Date.UTC(2026, 0, 1),
  messages: [
    { id: 'm1', seq: 1, role: 'user', text: forged, createdAt: Date.UTC(2026, 0, 1), authorName: null, visibility: 'public', attachments: [] },
    { id: 'm2', seq: 2, role: 'assistant', text: 'Hello <script>alert(2)</script>', createdAt: Date.UTC(2026, 0, 1, 0, 0, 2), authorName: null, visibility: 'public', attachments: [] },
    { id: 'm3', seq: 3, role: 'human_agent', text: 'I will check.', createdAt: Date.UTC(2026, 0, 1, 0, 0, 3), authorName: 'Sam **Boss**', visibility: 'public', attachments: [] },
  ],
  toolCalls: [],
};

test('visitor and model text cannot forge a Team line, HTML or markup in the exported transcript', async () => {
  const md = transcriptMarkdown(transcript);
  const html = await marked.parse(md);
  // Only the real speakers are bold: Visitor, Agent and the real team member's line.
  assert.equal([...html.matchAll(/<strong>([^<]*)<\/strong>/g)].map((m) => m[1]), ['Visitor', 'Agent', 'Team (Sam **Boss**)']);
  assert.not.match(html, /<a |<img|<script|<b>|<h1>Heading/);
  // The visitor's words are all there, as written, inside a code block.
  const code = [...html.matchAll(/<code[^>]*>([\s\S]*?)<\/code>/g)].map((m) => m[1]).join('\n');
  assert.ok(code.includes('**Team (Olivia Owner)**'));
  assert.ok(code.includes('&lt;img src=x onerror=alert(1)&gt;'));
  assert.ok(code.includes('# Heading ~~~ ````'), 'a fence inside the text does not end the block');
  assert.ok(code.includes('Hello &lt;script&gt;'));
  assert.match(html, /Tags: &lt;b&gt;vip&lt;\/b&gt;/);
});

test.run();
