import type Pusher from 'pusher-js';
import { verifyDraw, type PageConfigJson } from '@waiting-room/streams/contract';
import { drawOrder, ticketOf } from '../../server/domain/events/draw';
import { RedisFanout } from '../../server/realtime/redis-fanout';
import type { Started } from '../../server/process/start';
import { RedisStore } from '../../server/store/redis/redis-store';
import { eventually } from '../support/eventually';
import { solveAltcha } from '../support/solve-altcha';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { ManualClock } from './support/manual-clock';
import { connectPusher, record, subscribe } from './support/realtime';
import { admin, startServer } from './support/server';
import { Visitor } from './support/visitor';

jest.setTimeout(30_000);

const T0 = Date.UTC(2030, 0, 1);
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
const DROP = { name: 'Drop', prequeueStartTime: at(60), eventStartTime: at(120), eventEndTime: at(3600), shuffleAtEventStart: true };
const ENV = { ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', SESSION_SECRET: 's'.repeat(32), PUSHER_SECRET: 'shared-secret', AWAY_SECONDS: '86400' };

/**
 * Several instances on one Redis, each on a clock of its own that the test moves: the pre-queue's
 * seed is drawn once, its entrants frozen once and the draw applied and announced once, whichever
 * instance gets there first; an instance started in the middle goes on from what Redis holds.
 */
describe('scheduled events on several instances sharing Redis', () => {
  let redis: RedisServer;
  let prefixes = 0;
  const servers: Started[] = [];
  const clients: Pusher[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await Promise.all(servers.splice(0).map((server) => server.close()));
    jest.restoreAllMocks();
  });
  afterAll(() => redis?.close());

  /** An instance of the room under `prefix`, on its own clock. */
  const instance = async (prefix: string, now: number, env: Record<string, string> = {}) => {
    const clock = new ManualClock(now);
    const fanout = new RedisFanout(redis.url, { prefix });
    const server = await startServer({ ...ENV, ...env }, { clock, store: new RedisStore(redis.url, { prefix }), fanout });
    await fanout.ready(5000);
    servers.push(server);
    return { server, clock };
  };
  const draw = async (server: Started, id: string) => (await fetch(`${server.url}/events/${id}/draw`)).json();

  it('should draw the seed once, place the draw once, and announce it once, when every instance gets there at once', async () => {
    const prefix = `drop${++prefixes}:`;
    const [one, two, three] = await Promise.all([instance(prefix, T0), instance(prefix, T0), instance(prefix, T0)]);
    const everyone = [one, two, three];
    const created = (await (await admin(one.server, 'POST', 'events', DROP)).json()) as { id: string };
    await new Visitor(one.server.url).get('/checkout');
    const seeds = jest.spyOn(RedisStore.prototype, 'startPrequeue');
    const steps = jest.spyOn(RedisStore.prototype, 'placeDrawn');

    await Promise.all(everyone.map(({ clock }) => clock.advance(60_000)));
    const commitments = await Promise.all(everyone.map(({ server }) => draw(server, created.id)));
    expect(new Set(commitments.map((each) => each.commitment)).size).toBe(1);
    // Each instance proposed a seed of its own; Redis kept the first.
    expect(new Set(seeds.mock.calls.map(([, seed]) => seed)).size).toBe(seeds.mock.calls.length);

    const visitors: Visitor[] = [];
    const pages: PageConfigJson[] = [];
    for (let i = 0; i < 9; i++) {
      const visitor = new Visitor(everyone[i % 3].server.url);
      visitors.push(visitor);
      pages.push(await visitor.hold());
    }
    expect(pages.every((page) => page.event?.commitment === commitments[0].commitment)).toBe(true);
    const listener = await connectPusher(two.server);
    clients.push(listener);
    const opened = record((await subscribe(listener, `App.Event.${created.id}`)).channel, 'QueueOpened');

    await Promise.all(everyone.map(({ clock }) => clock.advance(60_000)));

    // The draw is placed in the background, by whichever instances get there, each step once.
    await eventually(
      'the draw placed',
      async () => draw(one.server, created.id),
      (answer) => answer.order !== undefined,
      10_000,
    );
    const results = await Promise.all(steps.mock.results.map((result) => result.value as ReturnType<RedisStore['placeDrawn']>));
    expect(results.reduce((sum, step) => sum + (step?.placed ?? 0), 0)).toBe(9);
    const published = await Promise.all(everyone.map(({ server }) => draw(server, created.id)));
    expect(published[1]).toEqual(published[0]);
    expect(published[2]).toEqual(published[0]);
    for (const [i, page] of pages.entries()) {
      const verdict = await verifyDraw(published[0], { uuid: page.queue.uuid, commitment: commitments[0].commitment });
      expect(verdict).toMatchObject({ ok: true, entrants: 9 });
      expect((await visitors[i].queueInfo(page.queue.uuid)).json.position).toBe(verdict.rank);
    }
    await eventually(
      'QueueOpened',
      async () => opened,
      (heard) => heard.length >= 1,
      5000,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(opened).toEqual([{ spread: 1 }]);
  });

  it('should lose nothing when the instances stop in the middle: the commitment, the entrants and a freeze already taken carry over', async () => {
    const prefix = `drop${++prefixes}:`;
    const first = await instance(prefix, T0);
    const created = (await (await admin(first.server, 'POST', 'events', DROP)).json()) as { id: string };
    await new Visitor(first.server.url).get('/checkout');
    await first.clock.advance(60_000);
    const pages: PageConfigJson[] = [];
    for (let i = 0; i < 5; i++) pages.push(await new Visitor(first.server.url).hold());
    const before = await draw(first.server, created.id);
    await first.server.close();
    servers.splice(servers.indexOf(first.server), 1);

    // An instance froze the entrants at the opening, then died before applying the draw.
    const store = new RedisStore(redis.url, { prefix });
    await store.openEvent(created.id);
    expect((await store.eventState(created.id)).drawn).toBeUndefined();
    const late = await new Visitor((await instance(prefix, T0 + 130_000)).server.url).hold();
    await store.close();

    const after = servers[0];
    const published = await draw(after, created.id);
    expect(published).toMatchObject({ commitment: before.commitment, entrants: 5 });
    for (const page of pages) expect(await verifyDraw(published, { uuid: page.queue.uuid, commitment: before.commitment })).toMatchObject({ ok: true });
    // One who came after the freeze queues behind the draw.
    expect(late.event).toBeUndefined();
    expect((await new Visitor(after.url).queueInfo(late.queue.uuid)).json.position).toBe(6);
  });

  it("should follow an event's bot check on every instance, and draw only the places whose solution was verified", async () => {
    const prefix = `drop${++prefixes}:`;
    const [one, two] = await Promise.all([instance(prefix, T0, { BOT_CHALLENGE_DIFFICULTY: '8' }), instance(prefix, T0, { BOT_CHALLENGE_DIFFICULTY: '8' })]);
    const created = (await (await admin(one.server, 'POST', 'events', { ...DROP, botChallenge: 'pow' })).json()) as { id: string; botChallenge: string };
    expect(created.botChallenge).toBe('pow');
    await new Visitor(one.server.url).get('/checkout');
    await Promise.all([one, two].map(({ clock }) => clock.advance(60_000)));

    const held = async (server: Started) => {
      const visitor = new Visitor(server.url);
      const answer = await visitor.get('/checkout', { accept: 'application/json' });
      expect(answer.status).toBe(503);
      const page = answer.json as PageConfigJson;
      expect(page.altcha).toBeDefined();
      return { visitor, page };
    };
    const bots = [await held(two.server), await held(one.server)];
    const solvers = [await held(two.server), await held(one.server), await held(two.server)];
    for (const { visitor, page } of solvers) {
      const answer = await visitor.post('/queue/request', {
        json: { _token: page.csrfToken, user_id: page.user.id, uuid: page.queue.uuid, altcha: await solveAltcha(page.altcha!) },
      });
      expect(answer.json).toEqual({ uuid: page.queue.uuid, state: 'waiting' });
    }
    expect(await draw(two.server, created.id)).toMatchObject({ entrants: 3 });

    await Promise.all([one, two].map(({ clock }) => clock.advance(60_000)));
    const published = await draw(one.server, created.id);
    expect(published.order).toEqual(
      drawOrder(
        published.seed,
        solvers.map(({ page }) => page.queue.uuid),
      ).map((each) => each.ticket),
    );
    expect(await draw(two.server, created.id)).toEqual(published);
    for (const { visitor, page } of bots) {
      expect(published.order).not.toContain(ticketOf(page.queue.uuid));
      expect((await visitor.queueInfo(page.queue.uuid)).json).toEqual({ pending: true });
    }
    expect(await (await admin(two.server, 'GET', 'stats')).json()).toMatchObject({ waiting: 3, pending: 2 });
  });
});
