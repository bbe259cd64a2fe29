import { TIMINGS } from '@waiting-room/streams/contract';
import { eventually } from '../support/eventually';
import { useWaitingRoom } from '../support/waiting-room-scenario';

const ACTIVE_LIMIT = 1;

describe('a visitor whose release event is lost', () => {
  const room = useWaitingRoom({ ACTIVE_LIMIT: String(ACTIVE_LIMIT), RELEASE_PER_MINUTE: '0', SENTRY_SAMPLE_RATE: '1' });

  test("sees position 0, reports 'Websocket KO - position 0 depuis 10sec' after 10 s, then leaves for the site root", async () => {
    const { server } = room;
    await server.fill(ACTIVE_LIMIT);
    const visitor = await room.visit();
    const { page } = visitor;
    const queueRequests: string[] = [];
    // Answered, that is (its body is never read: the page drops it once the answer comes).
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === '/queue/request') queueRequests.push(response.url());
    });
    // Opened in place of the blank tab (location.replace): no page to go back to, as in a new tab
    // opened on the link, so the leave ends at the root.
    await Promise.all([page.waitForURL(server.at('/checkout?item=42')), page.evaluate((url) => window.location.replace(url), server.at('/checkout?item=42'))]);
    await expect(page.evaluate(() => history.length)).resolves.toBe(1);
    await page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    await expect(visitor.position()).resolves.toBe(1);

    // Subscribed first: a release before the subscription is announced again at queue_request (the
    // page connects once its position shows), and this is the case of an event lost after it.
    await eventually(
      'the queue_request sent once subscribed',
      async () => queueRequests.length,
      (count) => count > 0,
      15_000,
    );
    // Released without the event: only queue_info (the anonymous 5 s poll) can tell the page.
    const [uuid] = await server.release(1, { silent: true });
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
    const releasedAt = Date.now();
    await eventually(
      'position 0 on the page',
      () => visitor.position(),
      (position) => position === 0,
      TIMINGS.anonymousPoll + 3000,
    );

    const reports = await eventually(
      'the position-0 report in GET /admin/errors',
      () => server.errors(),
      (list) => list.length > 0,
      TIMINGS.anonymousPoll + TIMINGS.positionZeroTimeout + 5000,
      250,
    );
    expect(reports).toEqual([expect.objectContaining({ message: 'Websocket KO - position 0 depuis 10sec', release: '1.0.0' })]);
    // The watchdog waited its 10 s from the first 0 the page polled, which came after the release.
    expect(Date.parse(reports[0].receivedAt) - releasedAt).toBeGreaterThanOrEqual(TIMINGS.positionZeroTimeout - 500);
    // The held GET was never replayed: the page did not navigate to it.
    expect(visitor.navigations.filter((url) => url === server.at('/checkout?item=42'))).toHaveLength(1);

    // Back in history goes nowhere, so the fallback takes the visitor to the root 3 s later.
    await visitor.arrivesAt(server.at('/'), TIMINGS.leaveDelay + TIMINGS.rootFallback + 10_000);
    await page.locator('h1', { hasText: 'A small shop' }).waitFor();
    expect(visitor.offSite).toEqual([]);
    expect(await server.stats()).toMatchObject({ waiting: 0, released: 1 });
    expect((await server.errors()).map((report) => report.message)).toEqual(['Websocket KO - position 0 depuis 10sec']);
  }, 60_000);
});
