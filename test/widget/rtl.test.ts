/**
 * Right-to-left widgets (Arabic, Hebrew) showing replies in another direction: each message, table and code block
 * takes the direction of its own text, code always runs left to right. Checked by computed direction and by where
 * things land on screen (bounding boxes), in every layout and on a phone; screenshots in /tmp/shots/widget/.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { startWidgetWorld, type WidgetWorld } from './world.js';

const SHOTS = '/tmp/shots/widget';
const ENGLISH = 'Here is the code:\n\n```js\nfunction hello(name) {\n  return `Hi ${name}`;\n}\n```\n\n'
  + '1. Install the widget\n2. Publish the bot\n\n| Item | Price |\n|---|---|\n| Widget | 10 EUR |\n\nAnything else?';
const ARABIC = 'هذا هو الرمز المطلوب:\n\n```\nfunction hello(name) {\n}\n```\n\nهل تحتاج شيئا آخر؟';

let w: WidgetWorld;
test.before(async () => { w = await startWidgetWorld(); });
test.after(async () => { await w?.close(); });

interface Measured {
  md: string; pre: string | null; ol: string | null;
  code: { fn: number; brace: number } | null;
  list: { olLeft: number; liLeft: number; olRight: number; liRight: number } | null;
  table: { first: number; second: number; dir: string } | null;
}
const MEASURE = new Function('m', `
  const dir = (el) => (el ? getComputedStyle(el).direction : null);
  const rectOf = (el, word) => {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const i = n.textContent.indexOf(word);
      if (i < 0) continue;
      const r = document.createRange();
      r.setStart(n, i); r.setEnd(n, i + word.length);
      return r.getBoundingClientRect();
    }
    throw new Error('no ' + word + ' in ' + el.textContent);
  };
  const md = m.querySelector('.md');
  const pre = m.querySelector('pre');
  const ol = m.querySelector('ol');
  const li = ol && ol.querySelector('li');
  const th = [...m.querySelectorAll('th')];
  const box = (el) => el.getBoundingClientRect();
  return {
    md: dir(md), pre: dir(pre), ol: dir(ol),
    // Left to right: "function" starts the line and "{" ends it.
    code: pre ? { fn: rectOf(pre, 'function').left, brace: rectOf(pre, '{').left } : null,
    // Left to right: the list's numbers are in the left padding, so the item starts right of the list's edge.
    list: ol && li ? { olLeft: box(ol).left, liLeft: box(li).left, olRight: box(ol).right, liRight: box(li).right } : null,
    table: th.length ? { first: box(th[0]).left, second: box(th[1]).left, dir: dir(m.querySelector('table')) } : null,
  };
`) as (m: Element) => Measured;

/** Where the reply's parts are drawn and which direction they computed. */
function measure(page: Page, hasText: string): Promise<Measured> {
  // Made from source text: tsx would wrap named helpers in __name(), which the page does not have.
  return page.locator('.m.assistant, .cap', { hasText }).last().evaluate(MEASURE);
}

function assertEnglishLtr(r: Measured, where: string) {
  assert.is(r.md, 'ltr', `${where}: the English reply runs left to right`);
  assert.is(r.pre, 'ltr', `${where}: code left to right`);
  assert.ok(r.code!.fn < r.code!.brace, `${where}: "function" before "{" (${r.code!.fn} < ${r.code!.brace})`);
  assert.is(r.ol, 'ltr');
  assert.ok(r.list!.liLeft > r.list!.olLeft + 8 && Math.abs(r.list!.liRight - r.list!.olRight) < 1, `${where}: list numbers on the left (${JSON.stringify(r.list)})`);
  assert.is(r.table!.dir, 'ltr');
  assert.ok(r.table!.first < r.table!.second, `${where}: first column on the left (${r.table!.first} < ${r.table!.second})`);
}

async function ask(page: Page, question: string, reply: string, waitText: string) {
  w.fake.script({ text: reply });
  await page.fill('.cp textarea', question);
  await page.press('.cp textarea', 'Enter');
  await page.locator('.m.assistant, .cap', { hasText: waitText }).last().waitFor();
}

for (const lang of ['ar', 'he'] as const) {
  test(`a ${lang} widget shows an English Markdown reply left to right and its own language right to left`, async () => {
    const botId = await w.createBot({ identity: { agentName: 'Ava', role: 'Support', language: lang, languagePolicy: 'fixed' } });
    const page = await w.newPage({ width: 1280, height: 900 });
    await page.goto(w.page(`/rtl-${lang}`, w.embed(botId)));
    await page.click('button.l');
    await page.locator(`[lang="${lang}"][dir="rtl"]`).waitFor({ state: 'attached' });
    await ask(page, 'How do I start?', ENGLISH, 'Anything else?');
    assertEnglishLtr(await measure(page, 'Anything else?'), lang);
    // The visitor's English words are drawn left to right too; the window stays right to left.
    const user = await page.locator('.m.user').last().evaluate((m) => getComputedStyle(m.querySelector('.ut') ?? m).direction);
    assert.is(user, 'ltr');
    await ask(page, 'والآن؟', ARABIC, 'شيئا آخر');
    const ar = await measure(page, 'شيئا آخر');
    assert.is(ar.md, 'rtl', 'an Arabic reply stays right to left');
    assert.is(ar.pre, 'ltr', 'its code still left to right');
    assert.ok(ar.code!.fn < ar.code!.brace);
    await page.locator('.m.assistant', { hasText: 'Anything else?' }).last().evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await page.screenshot({ path: `${SHOTS}/rtl-${lang}-panel.png` });
  });
}

test('every layout and a phone, in Hebrew, keep an English reply readable', async () => {
  const botId = await w.createBot({
    identity: { agentName: 'Ava', role: 'Support', language: 'he', languagePolicy: 'fixed' },
    appearance: { floating: { composer: true } },
  });
  const cases: Array<[string, { width: number; height: number }, Record<string, string>, string]> = [
    ['drawer', { width: 1280, height: 800 }, { layout: 'drawer' }, ''],
    ['floating', { width: 1280, height: 800 }, { layout: 'floating' }, ''],
    ['inline', { width: 1280, height: 800 }, { layout: 'inline', target: '#chat' }, '<div id="chat" style="height:560px;max-width:480px"></div>'],
    ['phone-panel', { width: 390, height: 780 }, {}, ''],
  ];
  for (const [name, viewport, attrs, extra] of cases) {
    const page = await w.newPage(viewport, { hasTouch: viewport.width < 500 });
    await page.goto(w.page(`/rtl-he-${name}`, w.embed(botId, attrs, extra)));
    if (attrs.layout !== 'inline') await page.click('button.l');
    await page.locator('.cp textarea').waitFor();
    await ask(page, 'How do I start?', ENGLISH, 'Anything else?');
    assertEnglishLtr(await measure(page, 'Anything else?'), name);
    await page.screenshot({ path: `${SHOTS}/rtl-he-${name}.png` });
  }
});

test.run();
