import type { Browser, Page, Request, WebSocketRoute } from 'playwright-core';
import { adminApi, type AdminApi } from '../support/admin-api';
import { freezePages, launchBrowser } from '../support/browser';
import { eventually } from '../support/eventually';
import { startServerProcess, stopAllServerProcesses, type ServerProcess } from '../support/server-process';
import { openVisitor, type Visitor } from '../support/visitor-page';

const ADMIN_TOKEN = 'away-and-back-admin-token-0123456789';
const HELD = '/checkout?item=42';
/** The realtime check after `unavailable`, shortened so that the page leaves while offline within the test. */
const CONNECTION_CHECK_MS = 8_000;
const ENV = {
  ACTIVE_LIMIT: '1',
  // Only the admin API releases.
  RELEASE_PER_MINUTE: '0',
  ADMIN_TOKEN,
  SESSION_SECRET: 'away-and-back-session-secret-0123456789abcdef',
  // The polls of 5 s and 60 s put out of the way: a position shown within a second of a return
  // can only come from the return's own call (or a move pushed on the realtime channel).
  PAGE_TIMINGS: JSON.stringify({ anonymousPoll: 600_000, poll: 600_000, connectionCheck: CONNECTION_CHECK_MS }),
};

/** The uuid of the place a waiting page holds, from the config the server rendered into it. */
async function uuidOf(page: Page): Promise<string> {
  const config = await page.locator('#waiting-room-config').textContent();
  return JSON.parse(config ?? '{}').queue?.uuid;
}

/** The queue_info calls a tab makes from now on, each with the test's clock. */
function queueInfoCalls(page: Page): { at: number; request: Request }[] {
  const calls: { at: number; request: Request }[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/queue/info/')) calls.push({ at: Date.now(), request });
  });
  return calls;
}

describe('a visitor who is away, and comes back', () => {
  let browser: Browser | undefined;
  /** Browsers of one visitor each, beside the shared one. */
  const browsers: Browser[] = [];
  let server: ServerProcess;
  let admin: AdminApi;
  const visitors: Visitor[] = [];

  beforeAll(async () => {
    server = await startServerProcess(ENV);
    admin = adminApi(server.url, ADMIN_TOKEN);
    browser = await launchBrowser();
    await admin.fill(1);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(visitors.splice(0).map((visitor) => visitor.close()));
    await Promise.all([browser, ...browsers.splice(0)].map(async (each) => each?.close()));
    await stopAllServerProcesses();
  });

  const visit = async (options = {}, on = browser!) => {
    const visitor = await openVisitor(on, server.url, options);
    visitors.push(visitor);
    return visitor;
  };

  /** A visitor held on the checkout, its waiting block shown. */
  const held = async (options = {}, on = browser!) => {
    const visitor = await visit(options, on);
    await visitor.page.goto(server.url + HELD);
    await visitor.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    // Settled: connected and subscribed, the calls of its start made (at once, at `connected`, at the subscription).
    await eventually(
      'the page to connect',
      () => visitor.page.evaluate(() => performance.getEntriesByType('resource').filter((entry) => entry.name.includes('/queue/info/')).length),
      (count) => count >= 3,
      15_000,
      100,
    );
    return visitor;
  };

  const release = async (count = 1) => {
    const response = await fetch(`${server.url}/admin/release`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ count }),
    });
    expect(response.status).toBe(200);
  };

  /** Released and gone on: the origin's page for the held request. */
  const throughAt = async (visitor: Visitor) => {
    // The waiting page is at the held address too: the shop's own page says the replay was made.
    await visitor.page.locator('h1', { hasText: 'Checkout' }).waitFor({ timeout: 20_000 });
    expect(visitor.page.url()).toBe(server.url + HELD);
  };

  /** Once the page shows a position, one after the other, within a second of `since`. */
  const shows = async (visitor: Visitor, position: number, since: number) => {
    await eventually(
      `position ${position} on the page`,
      () => visitor.position(),
      (shown) => shown === position,
      5_000,
      50,
    );
    return Date.now() - since;
  };

  // A phone's system suspends the browser: the page's renderer stopped (support/browser.ts), a
  // browser of its own so that no other visitor stops with it. Chromium sends `resume` when it thaws
  // a frozen page, with `visibilitychange` when it is shown again: a burst that counts as one return.
  test('frozen while the line moves, then while released: thawed, the position within a second with one queue_info call, then the replay once', async () => {
    const ahead = await held();
    const phone = await launchBrowser();
    browsers.push(phone);
    const visitor = await held({}, phone);
    await expect(visitor.position()).resolves.toBe(2);
    const calls = queueInfoCalls(visitor.page);
    const returned = () =>
      visitor.page.evaluate(() => {
        document.dispatchEvent(new Event('resume'));
        document.dispatchEvent(new Event('visibilitychange'));
        window.dispatchEvent(new Event('online'));
      });

    let thaw = await freezePages(phone);
    await release();
    await throughAt(ahead);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    thaw();
    const resumed = Date.now();
    await returned();
    expect(await shows(visitor, 1, resumed)).toBeLessThan(1_000);
    await eventually(
      'the return to ask queue_info',
      async () => calls.length,
      (count) => count > 0,
      1_000,
      20,
    );
    expect(calls[0].at - resumed).toBeLessThan(1_000);
    // One call for the return, and no more: nothing the freeze held back comes as a flood.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(calls).toHaveLength(1);

    // Released while frozen: nothing happens until the page runs again, then the replay, once.
    const landings = () => visitor.navigations.filter((url) => url === server.url + HELD).length;
    const before = landings();
    thaw = await freezePages(phone);
    await release();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(landings()).toBe(before);
    thaw();
    // The release's push, waiting in the socket, may replay the page before the return is sent.
    await returned().catch((error: Error) => {
      if (!/Execution context was destroyed/.test(error.message)) throw error;
    });
    await throughAt(visitor);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(landings()).toBe(before + 1);
  }, 90_000);

  test('offline while the line moves and then while released: back online, the position, then the replay', async () => {
    const ahead = await held();
    const visitor = await held();
    await expect(visitor.position()).resolves.toBe(2);
    const calls = queueInfoCalls(visitor.page);

    await visitor.context.setOffline(true);
    await release();
    await throughAt(ahead);
    const online = Date.now();
    await visitor.context.setOffline(false);
    expect(await shows(visitor, 1, online)).toBeLessThan(1_000);
    // The return's call, and those of the spec once the realtime connection is back (at
    // `connected` and, anonymous, at the subscription): no burst beyond them.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(calls.length).toBeLessThanOrEqual(3);

    await visitor.context.setOffline(true);
    await release();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await visitor.context.setOffline(false);
    await throughAt(visitor);
  }, 90_000);

  test('the browser closed and opened again with the same cookies: the same place, moved up, then through once released', async () => {
    const ahead = await held();
    const first = await held();
    const uuid = await uuidOf(first.page);
    await expect(first.position()).resolves.toBe(2);
    const cookies = await first.context.storageState();
    await first.context.close();

    // Closed while the one ahead is released.
    await release();
    await throughAt(ahead);

    const again = await visit({ storageState: cookies });
    const calls = queueInfoCalls(again.page);
    await again.page.goto(server.url + HELD);
    await again.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    await expect(uuidOf(again.page)).resolves.toBe(uuid);
    await expect(again.position()).resolves.toBe(1);
    // The page says the visitor may leave, and for how long: AWAY_SECONDS, 1800 by default.
    await expect(again.page.locator('.wr-away').textContent()).resolves.toBe('You may leave this page: your place is kept for 30 minutes while you are away.');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    // At the start, at `connected`, at the subscription: the spec's, and nothing more.
    expect(calls.length).toBeLessThanOrEqual(3);
    const kept = await again.context.storageState();
    await again.context.close();

    // Closed again, and released meanwhile: the same cookies go through.
    await release();
    const last = await visit({ storageState: kept });
    await last.page.goto(server.url + HELD);
    await throughAt(last);
  }, 90_000);

  test("left after 'Websoket KO - unavailable' while offline: the place is kept, and given back with the same cookies", async () => {
    const visitor = await visit();
    // Offline emulation leaves an open WebSocket alone: the realtime connection is cut here, and
    // every attempt refused while offline, as a phone out of coverage has it.
    let offline = false;
    const sockets: WebSocketRoute[] = [];
    await visitor.context.routeWebSocket(/\/app\//, (socket) => {
      if (offline) void socket.close({ code: 1006 });
      else socket.connectToServer();
      sockets.push(socket);
    });
    await visitor.page.goto(server.url + HELD);
    await visitor.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    const uuid = await uuidOf(visitor.page);
    const position = await visitor.position();
    const cookies = await visitor.context.storageState();

    offline = true;
    await visitor.context.setOffline(true);
    await Promise.all(sockets.map((socket) => socket.close({ code: 1006 })));
    // The page gives up on its realtime connection and leaves: back in history (none here), then to the root, offline.
    await eventually(
      'the page to leave',
      async () => visitor.navigations.length,
      (count) => count > 1,
      CONNECTION_CHECK_MS + 30_000,
      200,
    );
    expect(visitor.page.url()).not.toBe(server.url + HELD);
    const { waiting } = await admin.stats();
    expect(waiting).toBeGreaterThanOrEqual(1);
    await visitor.context.close();

    // Back on the site with the same cookies: the same place, where it was.
    const back = await visit({ storageState: cookies });
    await back.page.goto(server.url + HELD);
    await back.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    await expect(uuidOf(back.page)).resolves.toBe(uuid);
    await expect(back.position()).resolves.toBe(position);
  }, 90_000);
});
