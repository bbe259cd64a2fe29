import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';

/** One block of the waiting page as the visitor saw it, with the browser's clock at that moment. */
export interface SeenBlock {
  /** 'loading', or 'waiting' with the position shown. */
  readonly block: 'loading' | 'waiting';
  readonly position?: number;
  readonly at: number;
}

/**
 * Records, in every document the visitor opens, each change of the waiting page's visible
 * block (`.wr-loading`, or `.wr-waiting` with its position), in order. It only observes the
 * DOM: the page runs unchanged. Declared as a string so that no bundler touches it.
 */
const RECORD_BLOCKS = `(() => {
  const seen = [];
  Object.defineProperty(window, '__waitingRoomSeen', { value: seen });
  const digits = (text) => Number((text || '').replace(/[^0-9]/g, ''));
  const look = () => {
    const waiting = document.querySelector('.wr-waiting');
    const loading = document.querySelector('.wr-loading');
    const now = waiting
      ? { block: 'waiting', position: digits(waiting.querySelector('.wr-position strong')?.textContent) }
      : loading ? { block: 'loading' } : null;
    const last = seen[seen.length - 1];
    if (now && (!last || last.block !== now.block || last.position !== now.position)) {
      seen.push({ ...now, at: Date.now() });
    }
  };
  new MutationObserver(look).observe(document, { childList: true, subtree: true, characterData: true });
})();`;

/** A visitor: their own browser context (cookies, history) and one tab. */
export interface Visitor {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Main-frame addresses the tab navigated to, in order. */
  readonly navigations: string[];
  /** Every request the tab made to an origin other than `origin` (none may be made). */
  readonly offSite: string[];
  /** Dialogs the page opened (a `javascript:` URI run by the page would open one). */
  readonly dialogs: string[];
  /** The blocks seen in the current document. */
  seen(): Promise<SeenBlock[]>;
  /** The position shown in the waiting block, or null when it is not shown. */
  position(): Promise<number | null>;
  /**
   * Waits until the tab has loaded the site's page at `url`: the waiting page holds a request at
   * the request's own address, so the address alone does not say the replay landed. A timeout
   * says where the tab is and where it went, which tells a slow machine from a page that went
   * elsewhere.
   */
  arrivesAt(url: string, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export interface VisitorOptions extends BrowserContextOptions {
  /** Other origins the page may reach unhindered (e.g. a realtime server on another port). */
  readonly alsoAllowed?: readonly string[];
}

/**
 * Opens a new visitor on `origin`: a fresh context, so nothing is shared with other visitors.
 * Requests to any other origin (except `alsoAllowed`) are recorded and refused, so a test can
 * prove the page never leaves the site and never depends on a third party.
 */
export async function openVisitor(browser: Browser, origin: string, options: VisitorOptions = {}): Promise<Visitor> {
  const { alsoAllowed = [], ...contextOptions } = options;
  const allowed = new Set([new URL(origin).origin, ...alsoAllowed.map((other) => new URL(other).origin)]);
  const context = await browser.newContext(contextOptions);
  await context.addInitScript(RECORD_BLOCKS);
  const offSite: string[] = [];
  await context.route(
    (url) => !allowed.has(url.origin),
    (route) => {
      offSite.push(route.request().url());
      return route.abort('blockedbyclient');
    },
  );
  const page = await context.newPage();
  const navigations: string[] = [];
  const dialogs: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) navigations.push(frame.url());
  });
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss().catch(() => undefined);
  });
  return {
    context,
    page,
    navigations,
    offSite,
    dialogs,
    seen: () => page.evaluate(() => [...((window as unknown as { __waitingRoomSeen?: SeenBlock[] }).__waitingRoomSeen ?? [])]),
    async position() {
      const strong = page.locator('.wr-waiting .wr-position strong');
      if ((await strong.count()) === 0) return null;
      const text = await strong.textContent();
      return text === null ? null : Number(text.replace(/[^0-9]/g, ''));
    },
    async arrivesAt(url, timeoutMs) {
      try {
        // Evaluated again in each document the tab loads.
        await page.waitForFunction(
          (href) => location.href === href && document.readyState !== 'loading' && document.getElementById('waiting-room-config') === null,
          url,
          { timeout: timeoutMs, polling: 100 },
        );
      } catch (error) {
        const entries = await page.evaluate(() => window.history.length).catch(() => 'unknown');
        throw new Error(
          `The tab did not arrive at ${url} within ${timeoutMs} ms: it is at ${page.url()} ` +
            `(history length ${entries}) after navigating to ${JSON.stringify(navigations)}. ${String(error)}`,
          { cause: error },
        );
      }
    },
    // A context now and then takes Playwright's whole 30 s to close on a loaded machine (the
    // page's last sockets); the browser, closed after each file, takes what is left with it.
    close: () => Promise.race([context.close(), new Promise<void>((resolve) => setTimeout(resolve, 5000).unref())]),
  };
}
