import type { Browser, Route } from 'playwright-core';
import { TIMINGS } from '@waiting-room/streams/contract';
import { launchBrowser } from '../support/browser';
import { eventually } from '../support/eventually';
import { openVisitor, type Visitor } from '../support/visitor-page';
import { startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';

const ACTIVE_LIMIT = 1;
/** Room for a slow page load on a busy 2-core machine, on top of the spec's delays. */
const LOADED_MACHINE_SLACK_MS = 12_000;
const CONFIG = /(<script id="waiting-room-config" type="application\/json">)([\s\S]*?)(<\/script>)/;

/**
 * Why the waiting page is rewritten in the browser: the server renders the pending URI from
 * the held request's own path, which always starts with a protected prefix (`/checkout…`), and
 * browsers normalise `/checkout/..//evil.example` before sending it; so no request a browser
 * can make gets a hostile URI into the config the server renders. This route lets the real
 * server answer the held request, then changes only `queue.uri` in its answer. Everything
 * else the page does (realtime, queue_info, queue_request, the error sink) reaches the real
 * server untouched.
 */
function withPendingUri(uri: string) {
  return async (route: Route) => {
    const response = await route.fetch();
    const html = await response.text();
    const match = CONFIG.exec(html);
    if (!match) throw new Error(`The server did not answer with the waiting page (${response.status()})`);
    const config = JSON.parse(match[2]) as { queue: { uri: string } };
    config.queue.uri = uri;
    const json = JSON.stringify(config).replace(/</g, '\\u003c');
    await route.fulfill({ response, body: html.replace(CONFIG, (_all, open: string, _old, close: string) => open + json + close) });
  };
}

describe('a waiting page given a hostile pending URI', () => {
  let server: WaitingRoomServer;
  let browser: Browser;
  let visitor: Visitor | undefined;

  beforeAll(async () => {
    server = await startWaitingRoom({ ACTIVE_LIMIT: String(ACTIVE_LIMIT), RELEASE_PER_MINUTE: '0' });
    await server.fill(ACTIVE_LIMIT);
    browser = await launchBrowser();
  });

  afterEach(async () => {
    await visitor?.close();
    visitor = undefined;
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test.each([
    ['another origin', 'https://evil.example/steal'],
    ['a scheme-relative //host', '//evil.example/steal'],
    ['a backslash //host in disguise', '/\\evil.example/steal'],
    ['javascript:', 'javascript:alert(document.domain)'],
    ['data:', 'data:text/html,<script>alert(document.domain)</script>'],
  ])(
    'never navigates off the site: %s (%s) is no pending URI, so the page leaves for the root',
    async (_kind, uri) => {
      visitor = await openVisitor(browser, server.url);
      const { page } = visitor;
      await page.route((url) => url.href === server.at('/checkout?item=42'), withPendingUri(uri));
      const released = server.stats().then((stats) => stats.released);
      // In place of the blank tab, so that going back leads nowhere and the root fallback runs.
      await Promise.all([
        page.waitForURL(server.at('/checkout?item=42')),
        page.evaluate((url) => window.location.replace(url), server.at('/checkout?item=42')),
      ]);
      await expect(page.evaluate(() => history.length)).resolves.toBe(1);
      const rendered = await page.locator('#waiting-room-config').textContent();
      expect(JSON.parse(rendered ?? '{}')).toMatchObject({ queue: { uri } });

      // The server holds the visitor; even released (the event goes to their channel), the page stays on the site.
      const [uuid] = await eventually(
        'the visitor in line',
        () => server.release(1),
        (uuids) => uuids.length === 1,
      );
      expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
      await visitor.arrivesAt(server.at('/'), TIMINGS.rootFallback + LOADED_MACHINE_SLACK_MS);
      await page.locator('h1', { hasText: 'A small shop' }).waitFor();

      expect(visitor.navigations.every((url) => new URL(url).origin === new URL(server.url).origin)).toBe(true);
      expect(visitor.navigations.some((url) => url.includes('evil.example'))).toBe(false);
      expect(visitor.offSite).toEqual([]);
      expect(visitor.dialogs).toEqual([]);
      expect(await server.stats()).toMatchObject({ released: (await released) + 1 });
    },
    45_000,
  );
});
