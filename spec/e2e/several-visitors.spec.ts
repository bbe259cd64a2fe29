import type { Browser } from 'playwright-core';
import { TIMINGS } from '../../streams/constants';
import { launchBrowser } from '../support/browser';
import { eventually } from '../support/eventually';
import { openVisitor, type SeenBlock, type Visitor } from '../support/visitor-page';
import { startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';

const ACTIVE_LIMIT = 1;
/** How long a poll may take on a loaded machine, on top of the spec's period. */
const SLACK_MS = 3000;

describe('several visitors in line', () => {
  let server: WaitingRoomServer;
  let browser: Browser;
  let visitors: Visitor[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
  });

  beforeEach(async () => {
    server = await startWaitingRoom({ ACTIVE_LIMIT: String(ACTIVE_LIMIT), RELEASE_PER_MINUTE: '0' });
    await server.fill(ACTIVE_LIMIT);
  });

  afterEach(async () => {
    await Promise.all(visitors.map((visitor) => visitor.close()));
    visitors = [];
    await server?.close();
  });

  afterAll(async () => {
    await browser?.close();
  });

  /** Three anonymous visitors, each arriving once the previous one sees their place. */
  async function lineUp(count: number): Promise<Visitor[]> {
    for (let i = 1; i <= count; i++) {
      const visitor = await openVisitor(browser, server.url);
      visitors.push(visitor);
      await visitor.page.goto(server.at(`/checkout?item=${i}`));
      await visitor.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    }
    return visitors;
  }

  /** When (browser clock) the visitor first showed `position`, waiting at most `timeoutMs`. */
  async function shownAt(visitor: Visitor, position: number, timeoutMs: number): Promise<number> {
    const seen = await eventually(
      `position ${position} on the waiting page`,
      () => visitor.seen(),
      (blocks) => blocks.some((block: SeenBlock) => block.block === 'waiting' && block.position === position),
      timeoutMs,
    );
    return seen.find((block) => block.block === 'waiting' && block.position === position)!.at;
  }

  test(
    'are shown positions 1, 2, 3 in arrival order; a release takes the first through and moves the others up',
    async () => {
      const [first, second, third] = await lineUp(3);
      expect(await Promise.all([first!.position(), second!.position(), third!.position()])).toEqual([1, 2, 3]);
      expect(await server.stats()).toMatchObject({ waiting: 3, released: 0 });

      const [released] = await server.release(1);
      expect(released).toMatch(/^[0-9a-f-]{36}$/);

      // The first visitor is taken to the held GET (the same address: the page reloads it); the
      // others move up at their next poll.
      await first!.page.locator('h1', { hasText: 'Checkout' }).waitFor({ timeout: 15_000 });
      expect(first!.page.url()).toBe(server.at('/checkout?item=1'));
      await shownAt(second!, 1, TIMINGS.anonymousPoll + SLACK_MS);
      await shownAt(third!, 2, TIMINGS.anonymousPoll + SLACK_MS);
      expect(await Promise.all([second!.position(), third!.position()])).toEqual([1, 2]);
      expect(await server.stats()).toMatchObject({ waiting: 2, released: 1 });
      for (const visitor of visitors) expect(visitor.offSite).toEqual([]);
    },
    60_000,
  );

  /*
   * Known gap, measured: nothing pushes a new position. The release event goes to the released
   * visitor only, and the others learn their position from queue_info, which anonymous pages
   * poll every 5 s (signed-in pages every 60 s). Releasing right after a visitor's poll answer
   * makes that visitor wait the whole period: about 5000 ms, not under a second. This test
   * asserts the wanted behaviour and is marked `failing` until the server pushes positions
   * (or the page is told to poll on some event); then jest reports it and `.failing` goes.
   */
  test.failing(
    'see their new position within a second of a release (known gap: only the 5 s poll updates it)',
    async () => {
      const [, second, third] = await lineUp(3);
      // Release right after the last visitor's poll answer: only a push could update it now.
      await third!.page.waitForResponse((response) => response.url().includes('/queue/info/'), { timeout: 15_000 });
      const releasedAt = Date.now();
      await server.release(1);
      const moved = await Promise.all([
        shownAt(second!, 1, TIMINGS.anonymousPoll + SLACK_MS),
        shownAt(third!, 2, TIMINGS.anonymousPoll + SLACK_MS),
      ]);
      const slowest = Math.max(...moved) - releasedAt;
      console.info(`several visitors: the others moved up ${moved.map((at) => at - releasedAt).join(' ms and ')} ms after the release`);
      expect(slowest).toBeLessThanOrEqual(1000);
    },
    60_000,
  );
});
