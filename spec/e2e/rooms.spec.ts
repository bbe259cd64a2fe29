import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser';
import { eventually } from '../support/eventually';
import { openVisitor, type SeenBlock, type Visitor } from '../support/visitor-page';
import { E2E_ADMIN_TOKEN, startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';
import { startTestOrigin, type TestOrigin } from '../server/support/origin';

const ROOMS = JSON.stringify([
  { name: 'checkout', protect: ['/checkout'], activeLimit: 1 },
  { name: 'tickets', protect: ['/tickets'], activeLimit: 1 },
]);

/** The file's one Chromium, for both groups (each visitor a context of its own). */
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
}, 30_000);

describe('a visitor waiting in a room other than the first', () => {
  let origin: TestOrigin;
  let server: WaitingRoomServer;
  let visitor: Visitor | undefined;

  beforeAll(async () => {
    origin = await startTestOrigin();
    server = await startWaitingRoom({ ROOMS, RELEASE_PER_MINUTE: '0', UPSTREAM: origin.url });
    await server.fill(1, '/tickets');
  });
  afterAll(async () => {
    await visitor?.close();
    await server?.close();
    await origin?.close();
  }, 30_000);

  test("polls its own room's queue_info, and lands on the held request when that room releases it", async () => {
    visitor = await openVisitor(browser, server.url);
    const { page } = visitor;
    const polled = page.waitForRequest((request) => request.url().includes('/queue/info/') && request.url().endsWith('?room=tickets'));
    await page.goto(server.at('/tickets/7'));
    await page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    await polled;
    await expect(visitor.position()).resolves.toBe(1);

    const response = await fetch(server.at('/admin/release'), {
      method: 'POST',
      headers: { authorization: `Bearer ${E2E_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ count: 1, room: 'tickets' }),
    });
    expect(response.status).toBe(200);

    // The waiting page stands at the held address: the release shows there as the origin's answer.
    await page.getByText('origin: GET /tickets/7').waitFor({ timeout: 15_000 });
    expect(page.url()).toBe(server.at('/tickets/7'));
    expect(visitor.offSite).toEqual([]);
    expect(await server.errors()).toEqual([]);
  }, 60_000);
});

/*
 * Every room's line moves live: a release publishes `QueueMoved` on that room's own channel, and
 * each of its pages, anonymous or signed in, moves up from its ticket at once. The pages' polls
 * are ten minutes apart here, so only the push can move them within the test.
 */
describe('every room moves its own pages up live on a release, and only its own', () => {
  const POLL_MS = 600_000;
  /** Well under the poll: what a push takes on a loaded machine. */
  const PUSHED_WITHIN_MS = 10_000;
  let origin: TestOrigin;
  let server: WaitingRoomServer;
  const visitors: Visitor[] = [];

  beforeAll(async () => {
    origin = await startTestOrigin();
    server = await startWaitingRoom({
      ROOMS,
      RELEASE_PER_MINUTE: '0',
      UPSTREAM: origin.url,
      PAGE_TIMINGS: JSON.stringify({ anonymousPoll: POLL_MS, poll: POLL_MS }),
    });
    await server.fill(1, '/checkout');
    await server.fill(1, '/tickets');
  });
  afterAll(async () => {
    await Promise.all(visitors.map((visitor) => visitor.close()));
    await server?.close();
    await origin?.close();
  }, 30_000);

  /** A visitor waiting at `path`, signed in at the site first when `name` is given, once its page shows a position. */
  const waitAt = async (path: string, name?: string): Promise<Visitor> => {
    const visitor = await openVisitor(browser, server.url);
    visitors.push(visitor);
    if (name) {
      const signIn = await visitor.page.request.post(server.at('/login'), { form: { name }, maxRedirects: 0 });
      expect(signIn.status()).toBe(303);
    }
    await visitor.page.goto(server.at(path));
    await visitor.page.locator('.wr-waiting .wr-position strong').waitFor({ timeout: 15_000 });
    return visitor;
  };
  /** A place taken without a page (the head of a line), so that the visitors after it can move up. */
  const holdPlace = async (path: string) => {
    const response = await fetch(server.at(path));
    await response.text();
    expect(response.status).toBe(503);
  };
  const positionsSeen = async (visitor: Visitor) =>
    (await visitor.seen()).filter((block: SeenBlock) => block.block === 'waiting').map((block) => block.position);
  const adminRelease = async (room: string) => {
    const response = await fetch(server.at('/admin/release'), {
      method: 'POST',
      headers: { authorization: `Bearer ${E2E_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ count: 1, room }),
    });
    expect(response.status).toBe(200);
  };
  const shows = (visitor: Visitor, position: number) =>
    eventually(
      `position ${position} shown`,
      () => visitor.position(),
      (shown) => shown === position,
      PUSHED_WITHIN_MS,
    );

  test("a release in one room moves its anonymous and signed-in visitors up at once, and no other room's", async () => {
    await holdPlace('/checkout/1');
    await holdPlace('/tickets/1');
    const atCheckout = await waitAt('/checkout/2');
    const anonymous = await waitAt('/tickets/2');
    const signedIn = await waitAt('/tickets/3', 'Bea');
    expect(await Promise.all([atCheckout, anonymous, signedIn].map((visitor) => visitor.position()))).toEqual([2, 2, 3]);

    // The first room's release moves its page; the tickets' pages hear nothing of it.
    await adminRelease('checkout');
    await shows(atCheckout, 1);
    const quietFor = Date.now() + 2000;
    while (Date.now() < quietFor) {
      expect(await Promise.all([anonymous.position(), signedIn.position()])).toEqual([2, 3]);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    // The tickets' release moves both of its pages, the signed-in one (private channel) too.
    const releasedAt = Date.now();
    await adminRelease('tickets');
    await Promise.all([shows(anonymous, 1), shows(signedIn, 2)]);
    expect(Date.now() - releasedAt).toBeLessThan(PUSHED_WITHIN_MS);
    expect(await positionsSeen(anonymous)).toEqual([2, 1]);
    expect(await positionsSeen(signedIn)).toEqual([3, 2]);
    expect(await positionsSeen(atCheckout)).toEqual([2, 1]);
    for (const visitor of visitors) expect(visitor.offSite).toEqual([]);
    expect(await server.errors()).toEqual([]);
  }, 90_000);
});
