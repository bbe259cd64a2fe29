import type { Browser } from 'playwright-core';
import { PASS_COOKIE, PASS_PARAMETER, VISITOR_COOKIE, signPass } from '@waiting-room/connector';
import { launchBrowser } from '../support/browser';
import { closedPort } from '../support/closed-port';
import { startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';
import { buildNextExample, startNextSite, type NextSite } from '../connector/support/next-site';

const SECRET = 'a-pass-secret-shared-with-the-next-site';

/**
 * A visitor of the Next.js example (connector/examples/next: `next build`, `next start`, its
 * middleware on the Edge runtime) in real Chromium: the site at `localhost`, the waiting room at
 * `127.0.0.1`, two sites as in production, the checkout in the room `shop` of one place.
 */
describe('a visitor of the Next.js example with the connector', () => {
  let browser: Browser;
  let server: WaitingRoomServer;
  let site: NextSite;

  beforeAll(async () => {
    const [port] = await Promise.all([closedPort(), buildNextExample()]);
    const origin = `http://localhost:${port}`;
    const ROOMS = JSON.stringify([{ name: 'shop', protect: ['/checkout'], activeLimit: 1, connectorOrigins: [origin] }]);
    server = await startWaitingRoom({ ROOMS, RELEASE_PER_MINUTE: '0', PASS_SECRET: SECRET });
    // The room's one place is taken, so that every visitor here really waits.
    await server.fill(1);
    site = await startNextSite({ port, hostname: 'localhost', waitingRoom: server.url, secret: SECRET });
    browser = await launchBrowser();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await server?.close();
  }, 30_000);

  test('waits in line, is released, and lands on the checkout admitted, exactly once', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      const home = await page.goto(`${site.url}/`);
      expect(home?.status()).toBe(200);

      await page.goto(`${site.url}/checkout`);
      const enter = new URL(page.url());
      expect(enter.origin).toBe(server.url);
      await page.locator('.wr-waiting').waitFor({ timeout: 15_000 });

      const arrived = page.waitForURL(`${site.url}/checkout`, { timeout: 20_000 });
      expect(await server.release(1)).toHaveLength(1);
      await arrived;
      await expect(page.locator('h1').textContent()).resolves.toBe('Checkout');
      await expect(page.locator('#admitted').textContent()).resolves.toBe('admitted 1');
      expect(page.url()).not.toContain(PASS_PARAMETER);
      const cookies = await context.cookies(site.url);
      expect(cookies.find((cookie) => cookie.name === PASS_COOKIE)).toMatchObject({ httpOnly: true, sameSite: 'Lax' });

      // Exactly once: no second landing follows.
      await page.waitForTimeout(1000);
      expect(page.url()).toBe(`${site.url}/checkout`);

      // The next request carries the pass: the middleware lets it through, the room not asked.
      const waitingRoomRequests: string[] = [];
      page.on('request', (request) => {
        if (request.url().startsWith(server.url)) waitingRoomRequests.push(request.url());
      });
      await page.reload();
      await expect(page.locator('#admitted').textContent()).resolves.toBe('admitted 2');
      expect(waitingRoomRequests).toEqual([]);
    } finally {
      await context.close();
    }
  }, 30_000);

  test('a pass not signed with the secret is refused: the visitor is sent to wait', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(`${site.url}/checkout`);
      expect(new URL(page.url()).origin).toBe(server.url);
      const visitor = (await context.cookies(site.url)).find((cookie) => cookie.name === VISITOR_COOKIE);
      expect(visitor).toBeDefined();

      // A pass for this very visitor and room, still valid, signed with another secret.
      const now = Math.floor(Date.now() / 1000);
      const forged = await signPass({ room: 'shop', visitor: visitor!.value, session: 'forged', issuedAt: now, expiresAt: now + 600 }, `${SECRET}-but-another`);
      await context.addCookies([{ name: PASS_COOKIE, value: forged, url: site.url }]);
      const answered: number[] = [];
      page.on('response', (response) => {
        if (response.url() === `${site.url}/checkout`) answered.push(response.status());
      });
      await page.goto(`${site.url}/checkout`);
      expect(answered).toEqual([303]);
      expect(new URL(page.url()).origin).toBe(server.url);
      await page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    } finally {
      await context.close();
    }
  }, 30_000);
});
