import { closedPort } from '../support/closed-port';
import { eventually } from '../support/eventually';
import type { SeenBlock } from '../support/visitor-page';
import { useWaitingRoom } from '../support/waiting-room-scenario';

const ACTIVE_LIMIT = 1;
/**
 * Real spec timings: pusher-js gives up after its 10 s unavailable timeout (or sooner when
 * every transport is refused), the check runs 30 s later, the page leaves 2 s after reporting.
 */
const REPORT_WITHIN_MS = 10_000 + 30_000 + 10_000;

describe('a visitor whose realtime server is down', () => {
  let realtimePort: number;
  const room = useWaitingRoom(async () => {
    realtimePort = await closedPort();
    return {
      ACTIVE_LIMIT: String(ACTIVE_LIMIT),
      RELEASE_PER_MINUTE: '0',
      // The page is told to reach the realtime server on a port where nothing listens.
      PUSHER_CLIENT_PORT: String(realtimePort),
      // Every report is sent, so the test can see it reach the local sink.
      SENTRY_SAMPLE_RATE: '1',
    };
  });

  test("reports 'Websoket KO - unavailable' to the error sink and goes back in history", async () => {
    const { server } = room;
    await server.fill(ACTIVE_LIMIT);
    // The realtime port is the page's only other origin: its connection attempts must be refused, not blocked.
    const visitor = await room.visit({ alsoAllowed: [`http://127.0.0.1:${realtimePort}`] });
    const { page } = visitor;
    await page.goto(server.at('/?from=home'));
    await page.click('a:has-text("Open the checkout")');
    await page.waitForURL(server.at('/checkout?item=42'));
    // The first queue_info goes at once, without the connection: the position shows all the same.
    await page.locator('.wr-waiting').waitFor();
    expect(await server.stats()).toMatchObject({ waiting: 1 });

    // The blocks the waiting page showed, read until the report is in: the page leaves 2 s after
    // it, which a busy machine can take to answer, and the next document records none.
    let seen: SeenBlock[] = [];
    const reports = await eventually(
      'the unavailable report in GET /admin/errors',
      async () => {
        const list = await server.errors();
        const shown = await visitor.seen().catch(() => []);
        if (shown.length > 0) seen = shown;
        return list;
      },
      (list) => list.length > 0,
      REPORT_WITHIN_MS,
      250,
    );
    expect(reports).toEqual([expect.objectContaining({ message: 'Websoket KO - unavailable', release: '1.0.0' })]);
    // Never connected, so polled only once, at the start: the loading block, then that position.
    expect([...new Set(seen.map((block) => block.block))]).toEqual(['loading', 'waiting']);

    // Leaving: back in history to the page the visitor came from (the page is gone, so no root step).
    await visitor.arrivesAt(server.at('/?from=home'), 15_000);
    expect(visitor.navigations.at(-1)).toBe(server.at('/?from=home'));
    expect(visitor.offSite).toEqual([]);
    // The page left on its own: the server still keeps the place, and received one report only.
    expect(await server.stats()).toMatchObject({ waiting: 1, released: 0 });
    expect((await server.errors()).map((report) => report.message)).toEqual(['Websoket KO - unavailable']);
  }, 90_000);
});
