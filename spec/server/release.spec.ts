import type { PageConfigJson } from '@waiting-room/streams/contract';
import type { Started } from '../../server/process/start';
import { ManualClock } from './support/manual-clock';
import { admin, startServer, stats } from './support/server';
import { Visitor } from './support/visitor';

/** The release loop runs on the manual clock: nothing is released until a test moves time. */
describe('admission and release', () => {
  let server: Started;
  let clock: ManualClock;

  const start = async (env: Record<string, string>) => {
    clock = new ManualClock();
    server = await startServer(env, { clock });
  };
  afterEach(() => server.close());

  it('should release visitors in order of arrival as admitted sessions expire', async () => {
    await start({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '60', SESSION_SECONDS: '60', AWAY_SECONDS: '600' });
    await new Visitor(server.url).get('/checkout');
    const visitors = [new Visitor(server.url), new Visitor(server.url), new Visitor(server.url)];
    const pages: PageConfigJson[] = [];
    for (const visitor of visitors) pages.push(await visitor.hold());
    const positions = () => Promise.all(pages.map(async (page, i) => (await visitors[i].queueInfo(page.queue.uuid)).json.position));

    await clock.advance(30_000);
    expect(await positions()).toEqual([1, 2, 3]);

    await clock.advance(31_000);
    expect(await positions()).toEqual([0, 1, 2]);
    expect(await stats(server)).toMatchObject({ waiting: 2, active: 1, released: 1 });

    await clock.advance(60_000);
    // The first one's admission ended (and with it their entry); the second is through.
    expect((await positions()).slice(1)).toEqual([0, 1]);
  });

  it('should admit a visitor directly while nobody waits and fewer than ACTIVE_LIMIT are active', async () => {
    await start({ ACTIVE_LIMIT: '2', RELEASE_PER_MINUTE: '0' });

    const first = await new Visitor(server.url).get('/checkout');
    const second = await new Visitor(server.url).get('/checkout');
    const third = await new Visitor(server.url).get('/checkout');

    expect([first.page, second.page]).toEqual([undefined, undefined]);
    expect(third.page?.queue.position).toBe(1);
    expect(await stats(server)).toMatchObject({
      waiting: 1,
      active: 2,
      released: 0,
      releasePerMinute: 0,
      activeLimit: 2,
      paused: false,
      heldBodies: { count: 0, bytes: 0, refused: 0 },
    });
  });

  it('should never release more than RELEASE_PER_MINUTE', async () => {
    await start({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '6', SESSION_SECONDS: '1', AWAY_SECONDS: '3600' });
    await new Visitor(server.url).get('/checkout');
    const visitors = Array.from({ length: 5 }, () => new Visitor(server.url));
    for (const visitor of visitors) await visitor.hold();

    // Sessions last 1 s, so room is never the limit: only the rate is.
    for (let second = 0; second < 30; second++) {
      await clock.advance(1000);
      for (const visitor of visitors) await visitor.get('/');
    }

    expect((await stats(server)).released).toBe(3);
  });

  it('should let a released visitor through for SESSION_SECONDS, then hold them again', async () => {
    await start({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', SESSION_SECONDS: '60' });
    await new Visitor(server.url).get('/checkout');
    const ada = new Visitor(server.url);
    const first = await ada.hold('/checkout?item=1');
    const bob = await new Visitor(server.url).hold();
    await admin(server, 'POST', 'release', { count: 1 });

    const admitted = await ada.get('/checkout?item=1');
    await clock.advance(59_000);
    const stillAdmitted = await ada.get('/checkout?item=2');
    await clock.advance(2_000);
    const expired = await ada.get('/checkout?item=3');

    expect(admitted.page).toBeUndefined();
    expect(stillAdmitted.page).toBeUndefined();
    // Bob still waits, so Ada takes a new place behind him.
    expect(expired.page?.queue).toMatchObject({ uri: '/checkout?item=3', position: 2 });
    expect(expired.page?.queue.uuid).not.toBe(first.queue.uuid);
    expect(bob.queue.position).toBe(2);
  });

  it('should drop a visitor silent for AWAY_SECONDS and keep one who keeps polling', async () => {
    await start({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '60', SESSION_SECONDS: '60', AWAY_SECONDS: '30' });
    await new Visitor(server.url).get('/checkout');
    const silent = new Visitor(server.url);
    const polling = new Visitor(server.url);
    const silentPage = await silent.hold();
    const pollingPage = await polling.hold();

    for (let elapsed = 0; elapsed < 60_000; elapsed += 10_000) {
      await clock.advance(10_000);
      await polling.queueInfo(pollingPage.queue.uuid);
    }
    await clock.advance(1000);

    expect((await polling.queueInfo(pollingPage.queue.uuid)).json.position).toBe(0);
    expect((await silent.queueInfo(silentPage.queue.uuid)).status).toBe(404);
    const back = await silent.hold();
    expect(back.queue.uuid).not.toBe(silentPage.queue.uuid);
  });

  it('should stop releasing while paused and go on once resumed', async () => {
    await start({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '60', SESSION_SECONDS: '10', AWAY_SECONDS: '3600' });
    await new Visitor(server.url).get('/checkout');
    const ada = new Visitor(server.url);
    const page = await ada.hold();

    expect(await (await admin(server, 'POST', 'pause')).json()).toEqual({ paused: true });
    await clock.advance(30_000);
    expect((await ada.queueInfo(page.queue.uuid)).json.position).toBe(1);
    expect(await stats(server)).toMatchObject({ paused: true, released: 0 });

    expect(await (await admin(server, 'POST', 'resume')).json()).toEqual({ paused: false });
    await clock.advance(1000);
    expect((await ada.queueInfo(page.queue.uuid)).json.position).toBe(0);
  });

  /** One admitted, ten held behind: the queue_info of the first and of the last of them. */
  const tenHeld = async () => {
    await new Visitor(server.url).get('/checkout');
    const visitors = Array.from({ length: 10 }, () => new Visitor(server.url));
    const pages: PageConfigJson[] = [];
    for (const visitor of visitors) pages.push(await visitor.hold());
    return { first: () => visitors[0].queueInfo(pages[0].queue.uuid), last: () => visitors[9].queueInfo(pages[9].queue.uuid) };
  };

  it('should estimate the wait from the configured rate, then from the releases seen', async () => {
    // Sessions of a second: the rate, not the active limit, paces the room.
    await start({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '1', SESSION_SECONDS: '1', AWAY_SECONDS: '3600' });
    const { last } = await tenHeld();

    expect((await last()).json).toEqual({ position: 10, estimated: 10, ticket: 10, served: 0 });

    // An operator releases 5 in 50 s, faster than the configured 1 a minute.
    await admin(server, 'POST', 'pause');
    for (let i = 0; i < 5; i++) {
      await clock.advance(10_000);
      await admin(server, 'POST', 'release', { count: 1 });
    }

    // 5 seen, one every 10 s: half the weight on the 6 a minute observed, half on the 1 configured: 3.5 a minute.
    expect((await last()).json).toEqual({ position: 5, estimated: 2, ticket: 10, served: 5 });
  });

  it('should estimate a room its sessions pace from its active limit and session length', async () => {
    // One admitted at once for a minute: one release a minute, though the loop could release 60.
    await start({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '60', SESSION_SECONDS: '60', AWAY_SECONDS: '3600' });
    const { first, last } = await tenHeld();

    expect((await last()).json).toEqual({ position: 10, estimated: 10, ticket: 10, served: 0 });
    // The first session ends, the head is released, and nothing more for a minute: no stall, the same pace.
    for (let elapsed = 0; elapsed < 110_000; elapsed += 10_000) {
      await clock.advance(10_000);
      await first();
    }
    expect((await last()).json).toEqual({ position: 9, estimated: 9, ticket: 10, served: 1 });
  });
});
