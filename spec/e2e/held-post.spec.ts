import type { Request } from 'playwright-core';
import { eventually } from '../support/eventually';
import { useWaitingRoom } from '../support/waiting-room-scenario';

const ACTIVE_LIMIT = 1;
const NOTE = 'Gift wrap, please & <no> "bows"';

describe('a visitor signed in at the shop, held on a POST through the gateway', () => {
  const room = useWaitingRoom({ ACTIVE_LIMIT: String(ACTIVE_LIMIT), RELEASE_PER_MINUTE: '0' });

  test('waits on its own channel, and once released the shop receives the held form exactly once, its own CSRF check passing; a reload does not post it again', async () => {
    const { server } = room;
    const visitor = await room.visit();
    const { page } = visitor;
    const checkoutPosts: Request[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/checkout') checkoutPosts.push(request);
    });

    // Sign in at the shop: the shop's own session, which the waiting room knows nothing of.
    await page.goto(server.at('/'));
    await page.fill('#name', 'Ada');
    await page.click('button:has-text("Sign in")');
    await page.locator('header', { hasText: 'Signed in as' }).waitFor();

    await server.fill(ACTIVE_LIMIT);

    // Submit the protected form while the room is full: the POST is held.
    await page.fill('#quantity', '3');
    await page.fill('#note', NOTE);
    await page.click('button:has-text("Place the order")');
    await page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    await expect(visitor.position()).resolves.toBe(1);
    expect(page.url()).toBe(server.at('/checkout?item=42'));

    // The shop does not name its users to the waiting room: the visitor waits on the public
    // channel named after an unguessable uuid.
    expect(await server.stats()).toMatchObject({ waiting: 1, active: ACTIVE_LIMIT, released: 0 });

    const [uuid] = await server.release(1);

    // The replay: one hidden form POSTed to the held URI with the uuid; the gateway sends the
    // held body to the shop, whose own session and CSRF token still match.
    await page.locator('h1', { hasText: 'Checkout' }).waitFor({ timeout: 15_000 });
    await expect(page.locator('main').innerText()).resolves.toMatch(/received a POST request/);
    await expect(page.locator('header').innerText()).resolves.toContain('Signed in as');
    const fields = page.locator('.card', { hasText: 'Fields received' }).locator('tr');
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
    await expect(page.locator('main').innerText()).resolves.toContain('This request was already sent once; it cannot be sent again.');
    await expect(page.locator('a[href="/"]').count()).resolves.toBe(1);
    await expect(page.locator('body').textContent()).resolves.not.toContain('quantity');

    expect(
      await eventually(
        'the release in the stats',
        () => server.stats(),
        (s) => s.released === 1,
      ),
    ).toMatchObject({ waiting: 0, released: 1 });
    expect(visitor.offSite).toEqual([]);
    expect(await server.errors()).toEqual([]);
  }, 60_000);
});
