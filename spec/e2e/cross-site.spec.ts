import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useWaitingRoom } from '../support/waiting-room-scenario';
import { SESSION_COOKIE } from '../../server/http/session';

const ACTIVE_LIMIT = 1;

/**
 * Another site: `localhost`, while the waiting room is reached as `127.0.0.1` (two sites for
 * SameSite). `/form` submits an order to the protected path by itself, `/link` links to it.
 */
async function startOtherSite(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const pages: Record<string, string> = {
    '/form': `<!doctype html><form method="post" action="${target}"><input name="quantity" value="99"></form><script>document.forms[0].submit()</script>`,
    '/link': `<!doctype html><a id="go" href="${target}">A great deal</a>`,
  };
  const server: Server = createServer((req, res) => {
    const page = pages[req.url ?? ''];
    res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://localhost:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

// Starting the server and Chromium may take longer than a hook's 5 s on a loaded machine.
jest.setTimeout(30_000);

describe('a page on another site, while a visitor waits with a held POST', () => {
  const room = useWaitingRoom({ ACTIVE_LIMIT: String(ACTIVE_LIMIT), RELEASE_PER_MINUTE: '0' });

  test('neither its auto-submitted form nor its link replaces the visitor’s session or held order', async () => {
    const { server } = room;
    expect(new URL(server.url).hostname).toBe('127.0.0.1');
    const other = await startOtherSite(server.at('/checkout?attacker=1'));
    try {
      const visitor = await room.visit({ alsoAllowed: [other.url] });
      const { page, context } = visitor;
      await page.goto(server.at('/'));
      await server.fill(ACTIVE_LIMIT);
      await page.fill('#quantity', '3');
      await page.click('button:has-text("Place the order")');
      await page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
      const session = async () => (await context.cookies(server.url)).find((cookie) => cookie.name === SESSION_COOKIE)?.value;
      const before = await session();
      expect(before).toBeDefined();
      expect(await server.stats()).toMatchObject({ waiting: 1 });

      // The other site's form, in another tab of the same browser: sent without our cookie.
      const tab = await context.newPage();
      const posted = tab.waitForResponse((response) => response.url() === server.at('/checkout?attacker=1'));
      await tab.goto(`${other.url}/form`);
      const answer = await posted;
      expect(answer.request().method()).toBe('POST');
      expect(answer.request().headers().cookie ?? '').not.toContain(SESSION_COOKIE);
      expect(answer.status()).toBe(403);
      expect(await session()).toBe(before);
      expect(await server.stats()).toMatchObject({ waiting: 1 });

      // The other site's link: our cookie goes with it, and the visitor sees their own place.
      await tab.goto(`${other.url}/link`);
      const followed = tab.waitForResponse((response) => response.url() === server.at('/checkout?attacker=1'));
      await tab.click('#go');
      expect((await followed).status()).toBe(200);
      await tab.locator('.wr-waiting').waitFor({ timeout: 15_000 });
      expect(await session()).toBe(before);
      await tab.close();

      // At release the visitor's tab replays their own order, as they sent it, from this site.
      const replayed = page.waitForRequest((request) => request.method() === 'POST' && request.url() === server.at('/checkout?item=42'));
      await server.release(1);
      expect((await replayed).headers().origin).toBe(new URL(server.url).origin);
      await page.locator('h1', { hasText: 'Checkout' }).waitFor({ timeout: 15_000 });
      await expect(page.locator('main').innerText()).resolves.toMatch(/received a POST request/);
      const fields = page.locator('.card', { hasText: 'Fields received' }).locator('tr');
      expect((await fields.allTextContents()).map((row) => row.trim())).toContain('quantity3');
      expect(page.url()).toBe(server.at('/checkout?item=42'));
      expect(await server.errors()).toEqual([]);
    } finally {
      await other.close();
    }
  }, 60_000);
});
