import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SpeakableSplitter, cleanLine } from '../../src/providers/cascade/speakable.js';

/** Feeds text in small chunks, as a model streams it; returns each piece with how much text had come when it was cut. */
function stream(text: string, size = 3): Array<{ piece: string; at: number }> {
  const s = new SpeakableSplitter();
  const out: Array<{ piece: string; at: number }> = [];
  for (let i = 0; i < text.length; i += size) for (const piece of s.push(text.slice(i, i + size))) out.push({ piece, at: i + size });
  for (const piece of s.flush()) out.push({ piece, at: text.length });
  return out;
}
const pieces = (text: string, size = 3) => stream(text, size).map((p) => p.piece);

test('a reply is cut into sentences, and the first is handed out before the rest has been written', () => {
  const text = 'Sure! We open at nine. Is there anything else I can help with?';
  const out = stream(text);
  assert.equal(out.map((p) => p.piece), ['Sure!', 'We open at nine.', 'Is there anything else I can help with?']);
  assert.ok(out[0].at <= 9, `first piece cut after ${out[0].at} characters`);
  assert.ok(out[1].at < text.length, 'the second sentence goes before the text has ended');
});

test('numbers, abbreviations, initials and addresses do not end a sentence', () => {
  assert.equal(pieces('The fee is 3.5 percent, e.g. on a $200.00 order. Dr. Smith sees you at 9 a.m. on Monday. J. R. Tolkien wrote it.'),
    ['The fee is 3.5 percent, e.g. on a $200.00 order.', 'Dr. Smith sees you at 9 a.m. on Monday.', 'J. R. Tolkien wrote it.']);
  assert.equal(pieces('Visit example.com today. We open at 9 a.m. Tomorrow is different.'), ['Visit example.com today.', 'We open at 9 a.m.', 'Tomorrow is different.']);
  assert.equal(pieces('Bring apples, pears etc. and come early. Thanks...  See you.'), ['Bring apples, pears etc. and come early.', 'Thanks...', 'See you.']);
});

test('Markdown is spoken as the words it shows: no stars, hashes, code marks, link targets, list markers or tables', () => {
  const md = '## Opening hours\n\n**Monday** to *Friday*: 9–17.\n- Call `+1 555 0100` or [write to us](https://example.com/contact).\n1. Bring your_order_id.\n| Day | Hours |\n|---|---|\n| Sat | 10–14 |\n```js\nconsole.log(1)\n```\nDone!';
  assert.equal(pieces(md, 4), ['Opening hours', 'Monday to Friday: 9–17.', 'Call +1 555 0100 or write to us.', 'Bring your_order_id.', 'Day, Hours', 'Sat, 10–14', 'Done!']);
});

test('a long run without a full stop is cut at a comma, so speech can start', () => {
  const long = `${'one two three four five six seven eight nine ten, '.repeat(6)}and the end`;
  const out = pieces(long, 7);
  assert.ok(out.length >= 2, `cut into ${out.length}`);
  assert.ok(out.every((p) => p.length <= 230), out.map((p) => p.length).join(','));
  assert.is(out.join(' ').replace(/\s+/g, ' '), long.replace(/\s+/g, ' ').trim());
});

test('pieces come out the same whatever the chunk sizes', () => {
  const text = 'Hello there! The price is 12.50 euros. Mr. Brown, i.e. the owner, agrees. Why not? Great.';
  const expected = pieces(text, 1000);
  for (const size of [1, 2, 5, 11]) assert.equal(pieces(text, size), expected, `chunks of ${size}`);
});

test('cleanLine keeps words and drops markers left open while a line is still being written', () => {
  assert.is(cleanLine('**Bold start and'), 'Bold start and');
  assert.is(cleanLine('> quoted _text_ here'), 'quoted text here');
  assert.is(cleanLine('see [the docs](https://ex', true), 'see [the docs](');
  assert.is(cleanLine('see [the docs](https://ex'), 'see the docs');
});

test.run();
