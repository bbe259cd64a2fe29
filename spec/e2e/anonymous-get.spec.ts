import { eventually } from '../support/eventually';
import { useWaitingRoom } from '../support/waiting-room-scenario';

const ACTIVE_LIMIT = 2;

describe('an anonymous visitor held on a GET', () => {
  // RELEASE_PER_MINUTE=0: only the admin API releases, so the test decides when.
  const room = useWaitingRoom({ ACTIVE_LIMIT: String(ACTIVE_LIMIT), RELEASE_PER_MINUTE: '0' });

  test('waits with a position on a clean address bar, then lands on the held GET with its hash once released', async () => {
    const { server } = room;
    await server.fill(ACTIVE_LIMIT);
    expect(await server.stats()).toMatchObject({ active: ACTIVE_LIMIT, waiting: 0 });

    const visitor = await room.visit();
    const { page } = visitor;
    await page.goto(server.at('/checkout?item=42&position=3&uri=/x&method=GET#pay'));

    // The loading block first, then the waiting block with a position and minutes.
    await page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    const seen = await visitor.seen();
    expect(seen[0]).toMatchObject({ block: 'loading' });
    expect(seen.slice(1)).toEqual([expect.objectContaining({ block: 'waiting', position: 1 })]);
    await expect(page.locator('.wr-loading').count()).resolves.toBe(0);
    await expect(page.locator('.wr-estimated').textContent()).resolves.toMatch(/minute/);

    // While waiting, the address bar lost the held request's parameters only.
    expect(page.url()).toBe(server.at('/checkout?item=42#pay'));

    // The server holds the visitor in line: one waiting, the room still full.
    expect(await server.stats()).toMatchObject({ waiting: 1, active: ACTIVE_LIMIT, released: 0 });

    const [uuid] = await server.release(1);
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);

    // The held GET is replayed exactly as it was asked for, with the hash kept.
    await page.waitForURL(server.at('/checkout?item=42&position=3&uri=/x&method=GET#pay'), { timeout: 15_000 });
    await page.locator('h1', { hasText: 'Checkout' }).waitFor();
    const echoed = await page.locator('table tr').allTextContents();
    expect(echoed.map((row) => row.trim())).toEqual(['item42', 'position3', 'uri/x', 'methodGET']);
    await expect(page.locator('main').textContent()).resolves.toContain('The shop received a GET request.');

    // The server let the released visitor through: nobody waits, one more session is active.
    const stats = await eventually(
      'the release in the stats',
      () => server.stats(),
      (s) => s.released === 1,
    );
    expect(stats).toMatchObject({ waiting: 0, active: ACTIVE_LIMIT + 1, released: 1 });
    expect(visitor.offSite).toEqual([]);
    expect(await server.errors()).toEqual([]);
  }, 60_000);
});
