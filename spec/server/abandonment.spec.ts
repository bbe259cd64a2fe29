import type { FastifyBaseLogger } from 'fastify';
import { startReleaseLoop } from '../../server/domain/release-loop';
import type { Releases } from '../../server/domain/releases';
import type { Started } from '../../server/process/start';
import { ManualClock } from './support/manual-clock';
import { admin, startServer, stats } from './support/server';
import { Visitor } from './support/visitor';

/**
 * Visitors who walk away (close the page, lose their connection) stop polling; after
 * AWAY_SECONDS of silence their place goes, whatever the room is doing, so that those who
 * stay move up. The release loop runs on the manual clock.
 */
describe('abandonment', () => {
  let server: Started;
  let clock: ManualClock;

  beforeEach(async () => {
    clock = new ManualClock();
    server = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', AWAY_SECONDS: '1' }, { clock });
  });
  afterEach(() => server.close());

  it.each([
    ['full', false],
    ['full and paused', true],
  ])('should drop the visitors who walked away while the room is %s, so that the one who stays reads position 1', async (_room, paused) => {
    expect((await new Visitor(server.url).get('/checkout')).page).toBeUndefined();
    for (let i = 0; i < 40; i++) await new Visitor(server.url).hold();
    const stays = new Visitor(server.url);
    const { uuid } = (await stays.hold()).queue;
    if (paused) expect((await admin(server, 'POST', 'pause')).status).toBe(200);
    expect((await stays.queueInfo(uuid)).json).toMatchObject({ position: 41 });
    expect(await stats(server)).toMatchObject({ waiting: 41 });

    // The page polls every few seconds; here twice a second, while the others stay silent.
    for (let elapsed = 0; elapsed < 3000; elapsed += 500) {
      await clock.advance(500);
      expect((await stays.queueInfo(uuid)).status).toBe(200);
    }

    const answer = (await stays.queueInfo(uuid)).json;
    expect(answer).toEqual({ position: 1, estimated: expect.any(Number), ticket: answer.served + 1, served: answer.served });
    expect(await stats(server)).toMatchObject({ waiting: 1, active: 1, released: 0, paused });
  });

  it('should tell a visitor whose place was dropped that it is gone, and give them a new one at the end', async () => {
    await new Visitor(server.url).get('/checkout');
    const leaves = new Visitor(server.url);
    const left = (await leaves.hold()).queue;
    const stays = new Visitor(server.url);
    const { uuid } = (await stays.hold()).queue;

    for (let elapsed = 0; elapsed < 3000; elapsed += 500) {
      await clock.advance(500);
      await stays.queueInfo(uuid);
    }

    expect((await leaves.queueInfo(left.uuid)).status).toBe(404);
    const back = (await leaves.hold()).queue;
    expect(back.uuid).not.toBe(left.uuid);
    expect(back.position).toBe(2);
    expect((await stays.queueInfo(uuid)).json).toMatchObject({ position: 1 });
  });
});

describe('the release loop', () => {
  /** A stand-in for `Releases` that notes the calls, with a sweep that fails while `failing`. */
  const standIn = () => {
    const calls: string[] = [];
    const state = { failing: false };
    const releases = {
      async dropAbandoned() {
        calls.push('sweep');
        if (state.failing) throw new Error('store away');
        return 0;
      },
      async releaseDue() {
        calls.push('release');
        return [];
      },
    } as unknown as Releases;
    return { calls, state, releases };
  };
  const warnings: unknown[] = [];
  const log = { warn: (...args: unknown[]) => warnings.push(args) } as unknown as FastifyBaseLogger;

  it('should sweep, then release, on every tick', async () => {
    const clock = new ManualClock();
    const { calls, releases } = standIn();
    const loop = startReleaseLoop(releases, clock, 1000, log);
    await clock.advance(3000);
    await loop.stop();
    expect(calls).toEqual(['sweep', 'release', 'sweep', 'release', 'sweep', 'release']);
  });

  it('should still release when the sweep fails, and log the failure', async () => {
    const clock = new ManualClock();
    const { calls, state, releases } = standIn();
    state.failing = true;
    warnings.length = 0;
    const loop = startReleaseLoop(releases, clock, 1000, log);
    await clock.advance(1000);
    await loop.stop();
    expect(calls).toEqual(['sweep', 'release']);
    expect(warnings).toEqual([[{ err: expect.objectContaining({ message: 'store away' }) }, 'abandonment sweep failed']]);
  });
});
