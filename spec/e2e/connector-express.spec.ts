import type { Browser } from 'playwright-core';
import { PASS_COOKIE, PASS_PARAMETER } from '@waiting-room/connector';
import { launchBrowser } from '../support/browser';
import { startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';
import { startExpressSite, type ExpressSite } from '../connector/support/express-site';

const SECRET = 'a-pass-secret-shared-with-the-express-site';

/**
 * A visitor of an Express site protected by the connector, in real Chromium: the site at
 * `localhost`, the waiting room at `127.0.0.1`, two sites as in production.
 */
describe('a visitor of an Express site with the connector', () => {
  let browser: Browser;
  let server: WaitingRoomServer;
  let site: ExpressSite;

  beforeAll(async () => {
    browser = await launchBrowser();
    // The site's address is known once it listens, the waiting room's once it does: the site
    // reads the room's at its first request.
    site = await startExpressSite({ waitingRoom: () => server.url, secret: SECRET, hostname: 'localhost' });
    server = await startWaitingRoom({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', PASS_SECRET: SECRET, CONNECTOR_ORIGINS: site.url });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await server?.close();
  }, 30_000);

  test('waits in line at the waiting room, is released, and lands back on the site admitted, exactly once', async () => {
    await server.fill(1);
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(`${site.url}/checkout?item=3`);
      expect(new URL(page.url()).origin).toBe(server.url);
      await page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
      expect(site.admitted()).toBe(0);

      const arrived = page.waitForURL(`${site.url}/checkout?item=3`, { timeout: 20_000 });
      expect(await server.release(1)).toHaveLength(1);
      await arrived;
      await page.locator('#admitted').waitFor();
      expect(await page.locator('#admitted').textContent()).toMatch(/^admitted 1 until \d+$/);
      expect(page.url()).not.toContain(PASS_PARAMETER);
      const cookies = await context.cookies(site.url);
      expect(cookies.find((cookie) => cookie.name === PASS_COOKIE)).toMatchObject({ httpOnly: true, sameSite: 'Lax' });

      // Exactly once: no second landing follows, and a reload is served without the waiting room.
      await page.waitForTimeout(1000);
      expect(site.admitted()).toBe(1);
      const waitingRoomRequests: string[] = [];
      page.on('request', (request) => {
        if (request.url().startsWith(server.url)) waitingRoomRequests.push(request.url());
      });
      await page.reload();
      expect(await page.locator('#admitted').textContent()).toMatch(/^admitted 2 /);
      expect(waitingRoomRequests).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
