/**
 * End-to-end set-up for the admin panel tests: the bundles `npm run build` wrote, the real server on loopback (optionally
 * one already made, e.g. by startChatWorld), and headless Chromium driven by playwright-core.
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM } from '../widget/world.js';
import { DEFAULT_PASSWORD } from '../helpers/auth.js';
import type { TestServer } from '../helpers/server.js';
import { built } from '../helpers/built.js';

export interface AdminBrowser {
  /** A fresh page in its own context (no cookies) at /admin/#/<hash>. Page errors and console errors land in `errors`. */
  open(hash?: string): Promise<Page>;
  /** Errors the pages threw or the console reported (CSP violations show there); 4xx answers are expected. */
  errors: string[];
  close(): Promise<void>;
}

export async function startAdminBrowser(server: TestServer): Promise<AdminBrowser> {
  built(); // the bundles as `npm run build` wrote them (dist/public); says what to run when dist/ is missing or stale
  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const contexts: BrowserContext[] = [];
  const errors: string[] = [];
  return {
    errors,
    async open(hash = '') {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      contexts.push(ctx);
      const page = await ctx.newPage();
      page.setDefaultTimeout(10_000);
      page.on('pageerror', (err) => errors.push(`page error: ${err.message}`));
      page.on('console', (m) => { if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) errors.push(`console: ${m.text()}`); });
      await page.goto(`${server.url}/admin/${hash ? `#/${hash}` : ''}`);
      return page;
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => {});
      await browser.close();
    },
  };
}

/** Signs in through the login form. */
export async function signIn(page: Page, email: string, password = DEFAULT_PASSWORD): Promise<void> {
  await page.locator('form[name="login"]').waitFor();
  await page.fill('form[name="login"] input[name="email"]', email);
  await page.fill('form[name="login"] input[name="password"]', password);
  await page.click('form[name="login"] button[type="submit"]');
  await page.locator('nav.nav').waitFor();
}
