import type { Browser } from 'playwright-core';
import { TIMINGS } from '@waiting-room/streams/contract';
import { launchBrowser } from '../support/browser';
import { eventually } from '../support/eventually';
import { openVisitor, type SeenBlock, type Visitor } from '../support/visitor-page';
import { startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';
import { startTestOrigin, type TestOrigin } from '../server/support/origin';

const ACTIVE_LIMIT = 1;
/** How long a poll may take on a loaded machine, on top of the spec's period. */
const SLACK_MS = 3000;

describe('several visitors in line', () => {
  let server: WaitingRoomServer;
  let origin: TestOrigin;
  let browser: Browser;
  let visitors: Visitor[] = [];
  /** The channels signed-in visitors' pages asked `/pusher/auth` for. */
  let authorized: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
  });

  beforeEach(async () => {
    // A site that names its signed-in users to the waiting room (`Waiting-Room-User`).
    origin = await startTestOrigin();
    server = await startWaitingRoom({ ACTIVE_LIMIT: String(ACTIVE_LIMIT), RELEASE_PER_MINUTE: '0', UPSTREAM: origin.url });
    await server.fill(ACTIVE_LIMIT);
  });

  // Closing three browser contexts and the server can take longer than jest's 5 s on a loaded machine.
  afterEach(async () => {
    await Promise.all(visitors.map((visitor) => visitor.close()));
    visitors = [];
    authorized = [];
    await server?.close();
    await origin?.close();
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
  });

  /**
   * Visitors in line, each arriving once the previous one sees their place; those named in
   * `signedIn` (1-based) sign in at the site first, which names them to the waiting room.
   */
  async function lineUp(count: number, signedIn: readonly number[] = []): Promise<Visitor[]> {
    for (let i = 1; i <= count; i++) {
      const visitor = await openVisitor(browser, server.url);
      visitors.push(visitor);
      if (signedIn.includes(i)) {
        const signIn = await visitor.page.request.post(server.at('/login'), { form: { name: `Visitor ${i}` }, maxRedirects: 0 });
        expect(signIn.status()).toBe(303);
        visitor.page.on('request', (request) => {
          if (new URL(request.url()).pathname !== '/pusher/auth') return;
          authorized.push(new URLSearchParams(request.postData() ?? '').get('channel_name') ?? '');
        });
      }
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

  test('are shown positions 1, 2, 3 in arrival order; a release takes the first through and moves the others up', async () => {
    const [first, second, third] = await lineUp(3);
    expect(await Promise.all([first.position(), second.position(), third.position()])).toEqual([1, 2, 3]);
    expect(await server.stats()).toMatchObject({ waiting: 3, released: 0 });

    const [released] = await server.release(1);
    expect(released).toMatch(/^[0-9a-f-]{36}$/);

    // The first visitor is taken to the held GET (the same address: the page reloads it); the
    // others move up (pushed at once; their next poll would say so too).
    await first.page.locator('h1', { hasText: 'Checkout' }).waitFor({ timeout: 15_000 });
    expect(first.page.url()).toBe(server.at('/checkout?item=1'));
    await shownAt(second, 1, TIMINGS.anonymousPoll + SLACK_MS);
    await shownAt(third, 2, TIMINGS.anonymousPoll + SLACK_MS);
    expect(await Promise.all([second.position(), third.position()])).toEqual([1, 2]);
    expect(await server.stats()).toMatchObject({ waiting: 2, released: 1 });
    for (const visitor of visitors) expect(visitor.offSite).toEqual([]);
  }, 60_000);

  /*
   * Only a push can do this: the release event goes to the released visitor, and the others would
   * otherwise learn their position from queue_info, polled every 5 s by anonymous pages and every
   * 60 s by signed-in ones. The server publishes one QueueMoved on App.Queue after each release,
   * and each page moves itself up from its ticket.
   */
  test('see their new position within a second of a release, signed in (60 s poll) or not', async () => {
    // The second visitor is signed in: its next poll is a minute away.
    const [, second, third] = await lineUp(3, [2]);
    // The site named the signed-in visitor: its page listens on a private channel of its own.
    await eventually(
      'the private channel authorization',
      async () => authorized,
      (channels) => channels.length === 1,
    );
    expect(authorized[0]).toMatch(/^private-App\.User\.[1-9]\d*\.[0-9a-f-]{36}$/);
    // Release right after the anonymous visitor's poll answer: only a push could update it now.
    await third.page.waitForResponse((response) => response.url().includes('/queue/info/'), { timeout: 15_000 });
    const signedInPolls: string[] = [];
    second.page.on('request', (request) => void (request.url().includes('/queue/info/') && signedInPolls.push(request.url())));
    const releasedAt = Date.now();
    await server.release(1);
    const moved = await Promise.all([shownAt(second, 1, TIMINGS.anonymousPoll + SLACK_MS), shownAt(third, 2, TIMINGS.anonymousPoll + SLACK_MS)]);
    const slowest = Math.max(...moved) - releasedAt;
    console.info(`several visitors: the others moved up ${moved.map((at) => at - releasedAt).join(' ms and ')} ms after the release`);
    expect(slowest).toBeLessThanOrEqual(1000);
    // The signed-in page asked nothing: the push alone moved it.
    expect(signedInPolls).toEqual([]);
    expect(await Promise.all([second.position(), third.position()])).toEqual([1, 2]);
  }, 60_000);
});
