/**
 * axe-core in a test page: evaluates node_modules/axe-core/axe.min.js in it and runs it on the whole document (WCAG 2.x
 * A and AA rules plus best practices). `expectAxeClean` fails with one line per violation and the elements it hit.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let axeSource: string | null = null;

export interface AxeViolation { id: string; impact: string | null; help: string; nodes: string[] }

/** The violations on the page as it is now. `exclude` takes CSS selectors left out (e.g. a third-party iframe). */
export async function axeViolations(page: Page, opts: { exclude?: string[] } = {}): Promise<AxeViolation[]> {
  const has = await page.evaluate(() => typeof (window as any).axe === 'object');
  // Evaluated through the debugging protocol, not a <script> tag: the panel's CSP refuses inline scripts.
  if (!has) await page.evaluate((axeSource ??= readFileSync(axePath, 'utf8')) + '\n;0');
  return page.evaluate(async (exclude: string[]) => {
    const axe = (window as any).axe;
    const context = exclude.length ? { exclude: exclude.map((s) => [s]) } : document;
    const r = await axe.run(context, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] });
    return r.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n: any) => n.target.join(' ')) }));
  }, opts.exclude ?? []);
}

/** Throws when axe finds anything; `what` names the page in the message. */
export async function expectAxeClean(page: Page, what: string, opts: { exclude?: string[] } = {}): Promise<void> {
  const v = await axeViolations(page, opts);
  if (v.length) {
    throw new Error(`axe found ${v.length} problem(s) on ${what}:\n${v.map((x) => `- ${x.id} (${x.impact}): ${x.help} at ${x.nodes.join(', ')}`).join('\n')}`);
  }
}

/** Saves a screenshot of the page at desktop (1280 px) and phone (390 px) widths to dir/<name>-desktop.png and -390.png. */
export async function screenshots(page: Page, dir: string, name: string, opts: { clearToasts?: boolean } = {}): Promise<void> {
  const { mkdirSync } = await import('node:fs');
  mkdirSync(dir, { recursive: true });
  // clearToasts: the notes of earlier actions are dismissed first, so they cover nothing.
  if (opts.clearToasts) for (const close of await page.locator('.toast button').all()) await close.click().catch(() => {});
  const size = page.viewportSize() ?? { width: 1280, height: 800 };
  // No transitions mid-shot, and from the top (sticky bars sit where the scroll left them).
  await page.emulateMedia({ reducedMotion: 'reduce' });
  for (const [w, h, suffix] of [[1280, 800, 'desktop'], [390, 844, '390']] as const) {
    await page.setViewportSize({ width: w, height: h });
    await page.evaluate(() => { scrollTo(0, 0); return new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))); });
    await page.screenshot({ path: `${dir}/${name}-${suffix}.png`, fullPage: true });
  }
  await page.setViewportSize(size);
}
