import type { Request } from 'playwright-core';
import { eventually } from '../support/eventually';
import { useWaitingRoom } from '../support/waiting-room-scenario';

describe('a visitor continues on another device', () => {
  // RELEASE_PER_MINUTE=0: only the admin API releases, so the test decides when.
  const room = useWaitingRoom({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' });

  test('the link moves the place once to the browser that opens it; the first says so and stops; the release replays there once', async () => {
    const { server } = room;
    await server.fill(1);
    const ahead = await room.visit();
    await ahead.page.goto(server.at('/checkout?item=1'));
    await ahead.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });

    // The first device waits second in line, and asks for a link.
    const first = await room.visit();
    await first.page.goto(server.at('/checkout?item=42'));
    await first.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    await expect(first.position()).resolves.toBe(2);
    const panelButton = first.page.getByRole('button', { name: 'Continue on another device' });
    await panelButton.click();
    const link = first.page.locator('.wr-handoff-link');
    await link.waitFor({ timeout: 15_000 });
    const url = await link.inputValue();
    expect(url).toMatch(new RegExp(`^${server.at('/queue/handoff/')}[A-Za-z0-9_-]{43}$`));
    // The QR code is drawn in the page, from the page's own files: no other host was asked.
    await expect(first.page.locator('svg.wr-qr path').getAttribute('d')).resolves.toMatch(/^M\d+ \d+h1v1h-1z/);
    await expect(first.page.getByRole('img', { name: 'QR code of the link' }).count()).resolves.toBe(1);
    expect(first.offSite).toEqual([]);
    const firstInfo: Request[] = [];
    first.page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/queue/info/')) firstInfo.push(request);
    });

    // The second device opens it: it lands on the waiting page of the place, second in line.
    const second = await room.visit();
    const opened = await second.page.goto(url);
    expect(opened?.status()).toBe(200);
    expect(second.page.url()).toMatch(new RegExp(`^${server.at('/queue/place/')}[0-9a-f-]{36}$`));
    await second.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    await expect(second.position()).resolves.toBe(2);

    // The first device is told over its channel, and stops: no poll after it, ever.
    await first.page.locator('.wr-moved', { hasText: 'Your place moved to another device' }).waitFor({ timeout: 15_000 });
    await expect(first.page.locator('.wr-waiting').count()).resolves.toBe(0);
    const pollsAtMove = firstInfo.length;
    await first.page.waitForTimeout(6_000);
    expect(firstInfo).toHaveLength(pollsAtMove);

    // Opened again, by the second device or by a third, the link moves nothing and says why.
    const third = await room.visit();
    for (const page of [second.page, third.page]) {
      const again = await page.goto(url);
      expect(again?.status()).toBe(410);
      await expect(page.locator('h1').textContent()).resolves.toBe('This link moved nothing');
      await expect(page.locator('main').innerText()).resolves.toContain('It was already opened: a link moves a place once.');
    }
    await second.page.goBack();
    await second.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    await expect(second.position()).resolves.toBe(2);

    // The release: the second device replays the held GET once; the first never does.
    const firstNavigations = first.navigations.length;
    const checkouts: Request[] = [];
    second.page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/checkout' && request.isNavigationRequest()) checkouts.push(request);
    });
    await server.release(2);
    await second.arrivesAt(server.at('/checkout?item=42'), 15_000);
    await second.page.locator('h1', { hasText: 'Checkout' }).waitFor();
    await first.page.waitForTimeout(2_000);
    expect(checkouts).toHaveLength(1);
    expect(first.navigations).toHaveLength(firstNavigations);
    await expect(first.page.locator('.wr-moved').count()).resolves.toBe(1);
    expect(
      await eventually(
        'both releases in the stats',
        () => server.stats(),
        (s) => s.released === 2,
      ),
    ).toMatchObject({ waiting: 0, released: 2 });
    expect(await server.errors()).toEqual([]);
  }, 90_000);

  test('a link opened late, or never made, moves nothing and says why in the visitor’s language', async () => {
    const { server } = room;
    const stranger = await room.visit({ locale: 'fr-FR' });
    const unknown = await stranger.page.goto(server.at(`/queue/handoff/${'A'.repeat(43)}`));
    expect(unknown?.status()).toBe(404);
    await expect(stranger.page.locator('h1').textContent()).resolves.toBe('Ce lien n’a rien déplacé');
    await expect(stranger.page.locator('main').innerText()).resolves.toContain('Ce n’est pas un lien de cette salle d’attente');
  }, 30_000);
});
