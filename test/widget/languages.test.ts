/**
 * The widget's own strings in the visitor's language: the bot's fixed language, else the browser's; right to
 * left for Arabic and Hebrew; the bot's texts.strings over any of them; every language file complete.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { STRINGS, translator } from '../../widget/src/chat/strings.js';
import { startWidgetWorld, type WidgetWorld } from './world.js';

const I18N = fileURLToPath(new URL('../../widget/i18n/', import.meta.url));
const SHOTS = '/tmp/shots/widget';

let w: WidgetWorld;
test.before(async () => { w = await startWidgetWorld(); });
test.after(async () => { await w?.close(); });

test('every language file has every interface string, with the same placeholders, and a form for each number its grammar tells apart', () => {
  const langs = readdirSync(I18N).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
  assert.equal(langs, ['ar', 'de', 'es', 'fr', 'he', 'it', 'ja', 'nl', 'pl', 'pt', 'tr', 'zh']);
  const holes = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort().join();
  // Keys with number forms ('message.images.one' beside 'message.images', the form for every other number).
  const counted = Object.keys(STRINGS).filter((k) => /\.one$/.test(k)).map((k) => k.slice(0, -4));
  const isForm = (k: string) => counted.some((base) => k.startsWith(`${base}.`));
  for (const lang of langs) {
    const d = JSON.parse(readFileSync(`${I18N}${lang}.json`, 'utf8'));
    for (const [key, en] of Object.entries(STRINGS)) {
      if (isForm(key)) continue;
      assert.type(d[key], 'string', `${lang}: ${key} is translated`);
      assert.is(holes(d[key]), holes(en), `${lang}: ${key} keeps its placeholders`);
    }
    // The forms a count of 0-200 needs in this language (Arabic: zero, one, two, few, many; Japanese: none).
    const rules = new Intl.PluralRules(lang);
    const needed = [...new Set(Array.from({ length: 201 }, (_, n) => rules.select(n)))].filter((c) => c !== 'other').sort();
    for (const base of counted) {
      const forms = Object.keys(d).filter((k) => k.startsWith(`${base}.`)).map((k) => k.slice(base.length + 1)).sort();
      assert.equal(forms, needed, `${lang}: ${base} has a form for each number its grammar tells apart`);
      for (const f of forms) assert.ok(holes(d[`${base}.${f}`]).length <= holes(d[base]).length, `${lang}: ${base}.${f} has no placeholder of its own`);
    }
    assert.equal(Object.keys(d).filter((k) => !(k in STRINGS) && !isForm(k)), [], `${lang}: no unknown keys`);
  }
});

test('a count reads right in each language: 1 image, 2 images, and Polish and Arabic forms', () => {
  const fr = translator(JSON.parse(readFileSync(`${I18N}fr.json`, 'utf8')), {}, 'fr');
  const pl = translator(JSON.parse(readFileSync(`${I18N}pl.json`, 'utf8')), {}, 'pl');
  const ar = translator(JSON.parse(readFileSync(`${I18N}ar.json`, 'utf8')), {}, 'ar');
  const en = translator({});
  assert.equal([1, 2].map((count) => en('message.images', { count })), ['1 image', '2 images']);
  assert.equal([1, 2].map((count) => fr('message.images', { count })), ['1 image', '2 images']);
  assert.equal([1, 3, 5, 22].map((count) => pl('message.images', { count })), ['1 obraz', '3 obrazy', '5 obrazów', '22 obrazy']);
  assert.equal([1, 2, 3].map((count) => ar('message.images', { count })), ['صورة واحدة', 'صورتان', '3 صور']);
  // A bot's own text for the key is used for every number.
  const own = translator(JSON.parse(readFileSync(`${I18N}de.json`, 'utf8')), { 'message.images': 'Fotos: {count}' }, 'de');
  assert.equal([1, 4].map((count) => own('message.images', { count })), ['Fotos: 1', 'Fotos: 4']);
});

test('a bot with a fixed language speaks it whatever the browser says', async () => {
  const botId = await w.createBot({ identity: { agentName: 'Ava', role: 'Support', language: 'de', languagePolicy: 'fixed' } });
  const page = await w.newPage(undefined, { locale: 'fr-FR' });
  await page.goto(w.page('/de', w.embed(botId)));
  const launcher = page.locator('button.l');
  await page.waitForFunction(() => document.querySelector('[data-service-chat]')?.shadowRoot?.querySelector('button.l')?.getAttribute('aria-label') === 'Chat öffnen');
  await launcher.click();
  await page.locator('.cp button[aria-label="Senden"]').waitFor();
  assert.is(await launcher.getAttribute('aria-label'), 'Chat schließen');
  assert.is(await page.locator('[lang="de"][dir="ltr"]').count(), 1);
});

test('a bot matching the visitor follows the browser, right to left for Arabic, with the bot\'s own strings on top', async () => {
  const botId = await w.createBot({ texts: { strings: { 'composer.send': 'أرسل الآن' } } });
  const page = await w.newPage({ width: 420, height: 720 }, { locale: 'ar-EG' });
  await page.goto(w.page('/ar', w.embed(botId)));
  await page.locator('button.l[aria-label="افتح المحادثة"]').waitFor();
  await page.locator('button.l').click();
  const box = page.locator('[lang="ar"][dir="rtl"]');
  await box.waitFor({ state: 'attached' });
  await page.locator('.cp button[aria-label="أرسل الآن"]').waitFor();
  w.fake.script({ text: 'مرحبًا! كيف يمكنني مساعدتك اليوم؟' });
  await page.fill('.cp textarea', 'مرحبا');
  await page.press('.cp textarea', 'Enter');
  await page.locator('.m.assistant', { hasText: 'كيف يمكنني' }).waitFor();
  // Right to left: the visitor's own message sits at the start edge (the left), the reply at the right.
  const [mine, reply] = await Promise.all(['.m.user', '.m.assistant'].map((s) => page.locator(s).last().boundingBox()));
  assert.ok(mine!.x < reply!.x, `visitor's message left of the reply (${mine!.x} < ${reply!.x})`);
  await page.screenshot({ path: `${SHOTS}/widget-rtl-ar.png` });
});

test('an unsupported browser language falls back to the bot\'s language, then English', async () => {
  const botId = await w.createBot({ identity: { agentName: 'Ava', role: 'Support', language: 'es' } });
  const page = await w.newPage(undefined, { locale: 'ko-KR' });
  await page.goto(w.page('/ko', w.embed(botId)));
  await page.locator('button.l[aria-label="Abrir chat"]').waitFor();
  const en = await w.createBot({ identity: { agentName: 'Ava', role: 'Support', language: 'ko' } });
  const page2 = await w.newPage(undefined, { locale: 'ko-KR' });
  await page2.goto(w.page('/ko2', w.embed(en)));
  await page2.locator('button.l[aria-label="Open chat"]').waitFor();
});

test.run();
