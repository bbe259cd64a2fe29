import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser';
import { openVisitor, type Visitor } from '../support/visitor-page';
import { E2E_ADMIN_TOKEN, startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';
import { startTestOrigin, type TestOrigin } from '../server/support/origin';

const ROOMS = JSON.stringify([
  { name: 'checkout', protect: ['/checkout'], activeLimit: 1 },
  { name: 'tickets', protect: ['/tickets'], activeLimit: 1 },
]);

describe('a visitor waiting in a room other than the first', () => {
  let browser: Browser;
  let origin: TestOrigin;
  let server: WaitingRoomServer;
  let visitor: Visitor | undefined;

  beforeAll(async () => {
    browser = await launchBrowser();
    origin = await startTestOrigin();
    server = await startWaitingRoom({ ROOMS, RELEASE_PER_MINUTE: '0', UPSTREAM: origin.url });
    await server.fill(1, '/tickets');
  });
  afterAll(async () => {
    await visitor?.close();
    await server?.close();
    await origin?.close();
    await browser?.close();
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
