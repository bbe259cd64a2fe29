import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PASS_COOKIE, PASS_PARAMETER } from '@waiting-room/connector';
import { launchBrowser } from '../support/browser';
import { eventually } from '../support/eventually';
import { startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';
import { startWorkerOrigin, type WorkerOrigin } from '../connector/support/worker-origin';
import { exampleSettings, onFreePort, startExampleWorker, type WorkerdServer } from '../connector/support/workerd';

const SECRET = 'a-pass-secret-shared-with-the-worker-in-workerd';

/**
 * Visitors of a site behind the example Worker (connector/examples/worker, bundled as wrangler
 * would, in the real workerd) in real Chromium: the Worker at `localhost`, the waiting room at
 * `127.0.0.1`, two sites as in production, in the room of the example's wrangler.toml, of one
 * place. The site behind the Worker knows nothing of the waiting room but its revoke command.
 */
describe('visitors of a site behind the example Worker in workerd', () => {
  let browser: Browser;
  let server: WaitingRoomServer;
  let origin: WorkerOrigin;
  let worker: WorkerdServer;
  let site: string;

  beforeEach(async () => {
    const { vars } = await exampleSettings();
    [origin, browser] = await Promise.all([startWorkerOrigin(), launchBrowser()]);
    await onFreePort(async (port) => {
      site = `http://localhost:${port}`;
      const ROOMS = JSON.stringify([{ name: vars.WAITING_ROOM_ROOM, protect: ['/checkout'], activeLimit: 1, connectorOrigins: [site] }]);
      const room = await startWaitingRoom({ ROOMS, RELEASE_PER_MINUTE: '0', PASS_SECRET: SECRET, PASS_REVOCATION_SECONDS: '1' });
      try {
        worker = await startExampleWorker({ port, secret: SECRET, vars: { WAITING_ROOM_URL: room.url, ORIGIN_URL: origin.url } });
      } catch (error) {
        await room.close();
        throw error;
      }
      server = room;
    });
  }, 60_000);

  afterEach(async () => {
    await browser?.close();
    await worker?.close();
    await origin?.close();
    await server?.close();
  }, 30_000);

  /** Main-frame addresses the tab lands on, in order. */
  function landings(page: Page): string[] {
    const seen: string[] = [];
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) seen.push(frame.url());
    });
    return seen;
  }

  const passCookie = async (context: BrowserContext) => (await context.cookies(site)).find((cookie) => cookie.name === PASS_COOKIE);

  test('one is admitted while there is room; the next waits, is released, lands once, revokes, and waits again', async () => {
    // The first visitor finds the room's one place free: straight through, with no wait shown.
    const first = await browser.newContext();
    const firstPage = await first.newPage();
    await firstPage.goto(`${site}/checkout?item=1`);
    expect(firstPage.url()).toBe(`${site}/checkout?item=1`);
    await expect(firstPage.locator('#admitted').textContent()).resolves.toBe('admitted 1');
    expect(await passCookie(first)).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    expect((await server.stats()).active).toBe(1);

    // The room is full: the second is sent to wait, and sees their place in line.
    const second = await browser.newContext();
    const page = await second.newPage();
    const landed = landings(page);
    try {
      await page.goto(`${site}/checkout?item=2`);
      expect(new URL(page.url()).origin).toBe(server.url);
      await page.locator('.wr-waiting .wr-position strong').waitFor({ timeout: 15_000 });
      expect(await page.locator('.wr-waiting .wr-position strong').textContent()).toMatch(/\b1\b/);
      expect(origin.admitted()).toBe(1);

      // Released by the admin API: the page goes back through the Worker, admitted, exactly once.
      const arrived = page.waitForURL(`${site}/checkout?item=2`, { timeout: 20_000 });
      expect(await server.release(1)).toHaveLength(1);
      await arrived;
      await expect(page.locator('#admitted').textContent()).resolves.toBe('admitted 2');
      expect(page.url()).not.toContain(PASS_PARAMETER);
      expect(await passCookie(second)).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
      await page.waitForTimeout(1000);
      expect(origin.admitted()).toBe(2);
      expect(landed.filter((url) => url === `${site}/checkout?item=2`)).toHaveLength(1);
      expect(landed.filter((url) => url.includes(PASS_PARAMETER))).toEqual([]);

      // Done: the site's answer carries the revoke command, which the Worker carries out.
      await page.goto(`${site}/checkout/done`);
      await expect(page.locator('h1').textContent()).resolves.toBe('Thank you');
      expect(await passCookie(second)).toBeUndefined();
      // The revoked slot is given back once no other process can still honour the pass (PASS_REVOCATION_SECONDS).
      await eventually(
        'the revoked slot freed',
        () => server.stats(),
        (stats) => stats.active === 1,
      );

      // Without a pass, and the first visitor still in, the next visit waits again.
      await page.goto(`${site}/checkout?item=3`);
      expect(new URL(page.url()).origin).toBe(server.url);
      await page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
      expect(origin.admitted()).toBe(2);
    } finally {
      await second.close();
      await first.close();
    }
  }, 90_000);
});
