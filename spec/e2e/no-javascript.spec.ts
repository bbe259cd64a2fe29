import { useWaitingRoom } from '../support/waiting-room-scenario';

const ACTIVE_LIMIT = 1;

describe('a visitor without JavaScript', () => {
  const room = useWaitingRoom({ ACTIVE_LIMIT: String(ACTIVE_LIMIT), RELEASE_PER_MINUTE: '0' });

  test('is held in line and sees the loading block with the notice that the waiting room needs JavaScript', async () => {
    const { server } = room;
    await server.fill(ACTIVE_LIMIT);
    const visitor = await room.visit({ javaScriptEnabled: false });
    const { page } = visitor;
    const paths: string[] = [];
    page.on('request', (request) => paths.push(new URL(request.url()).pathname));

    const answer = await page.goto(server.at('/checkout?item=42'));
    expect(answer?.status()).toBe(200);
    await page.waitForLoadState('load');

    const loading = page.locator('.wr-loading');
    await expect(loading.isVisible()).resolves.toBe(true);
    await expect(loading.innerText()).resolves.toContain('Finding your place in line');
    const notice = page.locator('.wr-noscript');
    await expect(notice.isVisible()).resolves.toBe(true);
    await expect(notice.innerText()).resolves.toContain('needs JavaScript');
    await expect(page.locator('.wr-waiting').count()).resolves.toBe(0);

    // No script ran: nothing was called but the head's preload of the first queue_info (a GET that
    // only reads the position), and the address bar was left as it was.
    expect(paths.filter((path) => /^\/(queue|pusher|app|api)\//.test(path))).toEqual([expect.stringMatching(/^\/queue\/info\/[0-9a-f-]{36}$/)]);
    expect(page.url()).toBe(server.at('/checkout?item=42'));
    // The server holds the place all the same, for when the visitor comes back with JavaScript.
    expect(await server.stats()).toMatchObject({ waiting: 1, released: 0 });
    expect(visitor.offSite).toEqual([]);
  }, 30_000);
});
