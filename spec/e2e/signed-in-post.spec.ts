import type { Request } from 'playwright-core';
import { eventually } from '../support/eventually';
import { useWaitingRoom } from '../support/waiting-room-scenario';

const ACTIVE_LIMIT = 1;
const NOTE = 'Gift wrap, please & <no> "bows"';

describe('a signed-in visitor held on a POST', () => {
  const room = useWaitingRoom({ ACTIVE_LIMIT: String(ACTIVE_LIMIT), RELEASE_PER_MINUTE: '0' });

  test(
    'listens on its private channel, and once released the server receives the held form exactly once; a reload does not post it again',
    async () => {
      const { server } = room;
      const visitor = await room.visit();
      const { page } = visitor;
      const checkoutPosts: Request[] = [];
      page.on('request', (request) => {
        if (request.method() === 'POST' && new URL(request.url()).pathname === '/checkout') checkoutPosts.push(request);
      });

      // Sign in through the demo form.
      await page.goto(server.at('/'));
      await page.fill('#name', 'Ada');
      await page.click('button:has-text("Sign in")');
      await page.locator('header', { hasText: 'Signed in as' }).waitFor();

      await server.fill(ACTIVE_LIMIT);

      // Submit the protected form while the room is full: the POST is held.
      await page.fill('#quantity', '3');
      await page.fill('#note', NOTE);
      const authAnswer = page.waitForResponse((response) => new URL(response.url()).pathname === '/pusher/auth');
      await page.click('button:has-text("Place the order")');
      await page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
      await expect(visitor.position()).resolves.toBe(1);
      expect(page.url()).toBe(server.at('/checkout?item=42'));

      // A signed-in visitor's channel is private, authorized by the server for this session.
      const auth = await authAnswer;
      expect(auth.status()).toBe(200);
      const authorized = new URLSearchParams(auth.request().postData() ?? '').get('channel_name');
      expect(authorized).toMatch(/^private-App\.User\.[1-9]\d*\.[0-9a-f-]{36}$/);
      expect(await server.stats()).toMatchObject({ waiting: 1, active: ACTIVE_LIMIT, released: 0 });

      const [uuid] = await server.release(1);
      expect(authorized).toContain(`.${uuid}`);

      // The replay: one hidden form POSTed to the held URI with the uuid; the server restores the held body.
      await page.locator('h1', { hasText: 'Checkout' }).waitFor({ timeout: 15_000 });
      await expect(page.locator('main').innerText()).resolves.toMatch(/answering a POST\s+replayed from the waiting room/);
      const fields = page.locator('.card', { hasText: 'Form fields received' }).locator('tr');
      expect((await fields.allTextContents()).map((row) => row.trim())).toEqual(['quantity3', `note${NOTE}`]);
      const replays = checkoutPosts.filter((request) => request.postData()?.includes('uuid='));
      expect(replays).toHaveLength(1);
      expect(new URLSearchParams(replays[0]?.postData() ?? '').get('uuid')).toBe(uuid);
      expect(new URLSearchParams(replays[0]?.postData() ?? '').has('_method')).toBe(false);

      // A reload sends the replay form again: the server refuses it, echoes nothing, and tells
      // the shopper so on a page (not the JSON API clients get), with a way back.
      const again = await page.reload();
      expect(again?.request().method()).toBe('POST');
      expect(again?.status()).toBe(409);
      expect(again?.headers()['content-type']).toBe('text/html; charset=utf-8');
      await expect(page.locator('main').innerText()).resolves.toContain(
        'This request was already sent once; it cannot be sent again.',
      );
      await expect(page.locator('a[href="/"]').count()).resolves.toBe(1);
      await expect(page.locator('body').textContent()).resolves.not.toContain('quantity');

      expect(await eventually('the release in the stats', () => server.stats(), (s) => s.released === 1)).toMatchObject(
        { waiting: 0, released: 1 },
      );
      expect(visitor.offSite).toEqual([]);
      expect(await server.errors()).toEqual([]);
    },
    60_000,
  );
});
