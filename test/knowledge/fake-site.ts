import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

/**
 * A small website on 127.0.0.1 for ingestion tests: HTML pages with navigation and links, a sitemap
 * index with two sitemaps, robots.txt disallowing /private/, a Markdown page, a PDF, an external link and
 * two redirects (/hub within the site, /go to another host: localhost instead of 127.0.0.1).
 * `hold()` makes page requests wait until `release()`, to stop a server in the middle of a job.
 */
export interface FakeSite {
  url: string;
  /** Paths requested, in order. */
  requests: string[];
  pages: Record<string, string>;
  hold(): void;
  /** Resolves when this path has been requested (now or earlier) `times` times. */
  waitFor(path: string, times?: number): Promise<void>;
  release(): void;
  close(): Promise<void>;
}

/** The sample PDF of test/fixtures/knowledge, served at /handbook.pdf. */
export const HANDBOOK_PDF = new URL('../fixtures/knowledge/handbook.pdf', import.meta.url);

const page = (title: string, body: string, links: string[] = []) => `<!doctype html><html><head><title>${title}</title></head><body>
<nav><a href="/">Home</a> | <a href="/about.html">About</a></nav>
<main><article><h1>${title}</h1>${body}
<p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</p></article></main>
<footer>Copyright Example Gardens. All rights reserved.</footer></body></html>`;

export async function startFakeSite(): Promise<FakeSite> {
  let base = '';
  let held: Array<() => void> | null = null;
  const requests: string[] = [];
  const waiters: Array<{ path: string; times: number; resolve: () => void }> = [];
  const count = (path: string) => requests.filter((r) => r === path).length;
  const pages: Record<string, string> = {
    '/': page('Example Gardens', '<p>Example Gardens sells seeds, tools and advice for home gardeners across the country. Browse the guides below to learn about growing vegetables in small spaces.</p>',
      ['/guides/tomatoes.html', '/guides/compost.html', '/private/secret.html', 'https://elsewhere.example.org/x.html', '/logo.png']),
    '/about.html': page('About us', '<p>We are a family business founded in 1987 in a small village. Our greenhouse team answers questions by e-mail within two working days.</p>'),
    '/guides/tomatoes.html': page('Growing tomatoes', `<p>Tomatoes need at least eight hours of direct sunlight each day and deep watering twice a week.</p>
      <h2>Varieties</h2><ul><li>Cherry tomatoes ripen first</li><li>Beefsteak tomatoes need staking</li></ul>
      <h2>Feeding</h2><table><tr><th>Stage</th><th>Fertiliser</th></tr><tr><td>Seedling</td><td>none</td></tr><tr><td>Flowering</td><td>potassium-rich feed every ten days</td></tr></table>`, ['/guides/watering.html']),
    '/guides/compost.html': page('Making compost', '<p>Mix green kitchen scraps with brown leaves in equal parts. Turn the heap every two weeks so the compost stays aerobic and does not smell.</p>'),
    '/guides/watering.html': page('Watering schedule', '<p>Water early in the morning so leaves dry before evening; this prevents blight and mildew on tomatoes and cucumbers.</p>'),
    '/private/secret.html': page('Secret page', '<p>The staff discount code is PURPLEWOMBAT.</p>'),
    '/returns.html': page('Returns policy', '<p>Unopened seed packets can be returned within thirty days for a full refund; live plants are not returnable.</p>'),
    '/shipping.html': page('Shipping', '<p>Orders ship from our warehouse within three days. Delivery of live plants is only possible in spring.</p>'),
    // Reached only through the /hub redirect; its links are relative to /guides/.
    '/guides/hub.html': page('Guide hub', '<p>All our growing guides in one place, from compost to watering.</p>', ['compost.html', '../go']),
  };
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(path);
    for (const w of waiters.splice(0)) (count(w.path) >= w.times ? w.resolve() : waiters.push(w));
    const send = (status: number, type: string, body: string) => { res.writeHead(status, { 'content-type': type }); res.end(body); };
    const sendBytes = (status: number, type: string, body: Buffer) => { res.writeHead(status, { 'content-type': type }); res.end(body); };
    const redirect = (location: string) => { res.writeHead(302, { location }); res.end(); };
    const answer = () => {
      if (path === '/robots.txt') return send(200, 'text/plain', 'User-agent: *\nDisallow: /private/\n');
      if (path === '/sitemap_index.xml') return send(200, 'application/xml', `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
        <sitemap><loc>${base}/sitemap-guides.xml</loc></sitemap><sitemap><loc>${base}/sitemap-shop.xml</loc></sitemap></sitemapindex>`);
      if (path === '/sitemap-guides.xml') return send(200, 'application/xml', `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
        <url><loc>${base}/guides/tomatoes.html</loc></url><url><loc>${base}/guides/compost.html</loc></url><url><loc>${base}/private/secret.html</loc></url></urlset>`);
      if (path === '/sitemap-shop.xml') return send(200, 'application/xml', `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
        <url><loc>${base}/returns.html</loc></url><url><loc>${base}/shipping.html</loc></url></urlset>`);
      if (path === '/notes.md') return send(200, 'text/markdown', '# Opening hours\n\nThe shop is open Monday to Saturday, 9:00 to 17:30.\n');
      if (path === '/handbook.pdf') return sendBytes(200, 'application/pdf', readFileSync(HANDBOOK_PDF));
      // Redirects: /hub moves within the site (its page has relative links), /go leaves it for another host.
      if (path === '/hub') return redirect(`${base}/guides/hub.html`);
      if (path === '/go') return redirect(`${base.replace('127.0.0.1', 'localhost')}/about.html`);
      const html = pages[path];
      return html ? send(200, 'text/html; charset=utf-8', html) : send(404, 'text/plain', 'not found');
    };
    if (held && path.endsWith('.html')) held.push(answer);
    else answer();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base, requests, pages,
    hold() { held ??= []; },
    waitFor: (path, times = 1) => new Promise<void>((resolve) => (count(path) >= times ? resolve() : waiters.push({ path, times, resolve }))),
    release() { const waiting = held ?? []; held = null; for (const fn of waiting) fn(); },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
