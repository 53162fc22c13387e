/**
 * Shared set-up for the face tests (face.test.ts, face-live.test.ts): a host page that boots the widget with
 * options and opens it, and readers of the face's live frame.
 */
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { startWidgetWorld, type WidgetWorld } from './world.js';

export const SHOTS = '/tmp/shots/face';
export const MOODS = ['content', 'happy', 'excited', 'playful', 'thinking', 'surprised', 'confused', 'concerned', 'sad'];

/** The widget world with the bot most face tests use (a welcome and one suggested prompt); the screenshot folder made. */
export async function startFaceWorld(): Promise<{ w: WidgetWorld; botId: string }> {
  mkdirSync(SHOTS, { recursive: true });
  const w = await startWidgetWorld();
  const botId = await w.createBot({ welcome: { message: 'Hi! I am Ava. Ask me anything.', suggestedPrompts: ['Opening hours?'] } });
  return { w, botId };
}

/** A host page that boots the widget with these options (layout, theme...) and opens it; resolves once the face is drawn. */
export async function openFace(w: WidgetWorld, bot: string, boot: Record<string, unknown> = {}, options: Parameters<WidgetWorld['newPage']>[1] = {}, init?: string): Promise<Page> {
  const page = await w.newPage({ width: 1100, height: 760 }, options);
  if (init) await page.addInitScript(init);
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>Host</title><style>body{font-family:serif;background:#eef2f7;margin:0;padding:24px}#slot{width:420px;height:600px;margin-left:40px}</style></head>
<body><h1>Acme Widgets</h1><p>The host page.</p><div id="slot"></div>
<script type="module">import '${w.server.url}/static/widget/loader.js'; ServiceChat.boot(${JSON.stringify({ botId: bot, baseUrl: w.server.url, open: true, ...boot })});</script></body></html>`;
  await page.goto(w.page(`/f${Math.random().toString(36).slice(2)}`, html));
  await page.locator('.fc svg, .fc canvas').first().waitFor();
  return page;
}

/** The face's latest frame, its mood mark and kind (svg or custom). */
export const faceState = (page: Page) => page.evaluate(() => {
  const el = document.querySelector('[data-service-chat]')!.shadowRoot!.querySelector('.fc') as any;
  return { ...el.face.frame, mood: el.dataset.mood as string, kind: el.dataset.kind as string };
});

/** One frame value every 50 ms for `ms`. */
export async function sample(page: Page, ms: number, key: string): Promise<number[]> {
  const out: number[] = [];
  for (let t = 0; t < ms; t += 50) { out.push((await faceState(page))[key]); await page.waitForTimeout(50); }
  return out;
}
