import { eventually } from '../support/eventually';
import { useWaitingRoom } from '../support/waiting-room-scenario';

interface HeldJson {
  readonly queue: { readonly uuid: string };
  readonly csrfToken: string;
  readonly altcha?: unknown;
}

describe('the bot check (BOT_CHALLENGE=pow)', () => {
  // RELEASE_PER_MINUTE=0: only the admin API releases, so the test decides when.
  const room = useWaitingRoom({ BOT_CHALLENGE: 'pow', ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' });

  test('pages solve it unaided and take their places; clients that never solve take none and delay nobody', async () => {
    const { server } = room;
    await server.fill(1);

    // Raw clients, each a session of its own, held as programs are: a challenge they never solve.
    const bots: HeldJson[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await fetch(server.at('/checkout?bot'), { headers: { accept: 'application/json' } });
      expect(response.status).toBe(503);
      bots.push((await response.json()) as HeldJson);
    }
    expect(bots.every((bot) => bot.altcha !== undefined)).toBe(true);
    // One even asks for its position: the answer is "pending", neither a place nor released.
    const info = await fetch(server.at(`/queue/info/${bots[0].queue.uuid}`), { headers: { accept: 'application/json' } });
    expect([info.status, await info.json()]).toEqual([202, { pending: true }]);

    // The first page's worker is held back a moment, to see what the page says meanwhile.
    const first = await room.visit();
    let letWorkerThrough: () => void = () => undefined;
    const workerHeld = new Promise<void>((resolve) => (letWorkerThrough = resolve));
    await first.context.route('**/assets/altcha-worker-*.js', async (route) => {
      await workerHeld;
      await route.continue();
    });
    await first.page.goto(server.at('/checkout?item=1'));
    await first.page.locator('.wr-loading', { hasText: 'Checking your browser…' }).waitFor({ timeout: 15_000 });
    expect(await server.stats()).toMatchObject({ waiting: 0, pending: 4 });
    letWorkerThrough();
    await first.page.locator('.wr-waiting').waitFor({ timeout: 30_000 });
    const second = await room.visit();
    await second.page.goto(server.at('/checkout?item=2'));

    // Each page says it checks the browser, solves with no click, and shows its place: behind
    // nobody but each other, whatever came before them.
    for (const [visitor, position] of [
      [first, 1],
      [second, 2],
    ] as const) {
      await visitor.page.locator('.wr-waiting').waitFor({ timeout: 30_000 });
      expect(await visitor.position()).toBe(position);
    }
    expect(await server.stats()).toMatchObject({ waiting: 2, pending: 3, active: 1 });

    // Released in the order they solved; the bots are still nowhere.
    await server.release(1);
    await first.arrivesAt(server.at('/checkout?item=1'), 15_000);
    await first.page.locator('h1', { hasText: 'Checkout' }).waitFor();
    await eventually(
      'the second page moved up',
      () => second.position(),
      (position) => position === 1,
    );
    expect(await server.stats()).toMatchObject({ waiting: 1, pending: 3, released: 1 });
    expect([...first.offSite, ...second.offSite]).toEqual([]);
    expect(await server.errors()).toEqual([]);
  }, 90_000);
});
