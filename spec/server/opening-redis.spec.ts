import type { FastifyBaseLogger } from 'fastify';
import Redis from 'ioredis';
import type { Clock } from '../../server/domain/clock';
import { drawKey, drawOrder } from '../../server/domain/events/draw';
import { EventSchedule, KEY_PAGE } from '../../server/domain/events/schedule';
import { RedisStore } from '../../server/store/redis/redis-store';
import type { ReleasePolicy } from '../../server/store/types';
import { eventually } from '../support/eventually';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { event, fill, OPENING, PREQUEUE, T0 } from './support/opening';

/**
 * An event's opening on Redis at scale, and through faults: the draw placed in steps while the
 * releases follow it, never past an entrant not yet placed; an instance stopped half-way and
 * another taking up. A primary killed half-way under Sentinel: opening-sentinel.spec.ts.
 */

const quiet = () => undefined;
const logger = { info: quiet, warn: quiet, error: quiet, debug: quiet } as unknown as FastifyBaseLogger;
const announcer = { publishOpened: async () => undefined };

/** Everyone may go: the release below is bounded by the draw's steps alone. */
const drawing: ReleasePolicy = { activeLimit: 10_000_000, sessionMs: 3_600_000, perMinute: 0, abandonMs: 3_600_000, drawing: event.id };

/** A room's schedule on `store`, on a clock the test moves. */
function scheduleOn(store: RedisStore, clock: { now: number }): EventSchedule {
  const time: Clock = { now: () => clock.now, every: () => () => undefined };
  return new EventSchedule({ room: 'default', store, clock: time, log: logger, openingPollsPerSecond: 20_000, maxEvents: 100, announcer });
}

/** Redis's CPU time so far (user and system), µs. */
async function redisCpuMicros(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1]);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
}

/** Scripts Redis has run so far. */
async function scriptCalls(redis: Redis): Promise<number> {
  return Number(/cmdstat_evalsha:calls=(\d+)/.exec(await redis.info('commandstats'))?.[1] ?? 0);
}

describe('an opening on Redis', () => {
  let server: RedisServer;
  let admin: Redis;
  let rooms = 0;
  beforeAll(async () => {
    server = await startRedisServer();
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.close();
  });

  it('should release the first of 50,000 entrants while the rest is placed, in drawn order, in calls of a few ms of Redis', async () => {
    const prefix = `big${++rooms}:`;
    // Polls sent to Redis: the copy of the line, read whole at its first poll, is not the opening's.
    const store = new RedisStore(server.url, { prefix, commandTimeoutMs: 10_000, localLine: false });
    const clock = { now: T0 };
    const schedule = scheduleOn(store, clock);
    try {
      await store.saveEvents(0, [event]);
      clock.now = PREQUEUE;
      await schedule.step();
      const entrants = await fill(store, 50_000);
      // The release loop's ticks during the pre-queue key the entrants as they come.
      await eventually(
        'every entrant keyed',
        async () => {
          await schedule.step();
          return (await store.unkeyedEntrants(event.id, 1)).uuids;
        },
        (left) => left.length === 0,
        20_000,
      );
      const cpuBefore = await redisCpuMicros(admin);
      const callsBefore = await scriptCalls(admin);

      clock.now = OPENING;
      const opening = performance.now();
      await schedule.step();
      const released: string[] = [];
      let placedWhenFirst: string[] = [];
      while (released.length === 0) {
        released.push(...(await store.release(1, clock.now, drawing)).released.map((entry) => entry.uuid));
        if (released.length > 0) placedWhenFirst = await admin.lrange(`${prefix}ev:${event.id}:order`, 0, -1);
      }
      const firstReleaseMs = performance.now() - opening;
      while (!(await store.eventState(event.id)).drawn) {
        released.push(...(await store.release(200, clock.now, drawing)).released.map((entry) => entry.uuid));
      }

      // Released before the draw was done, in the draw's order, and only entrants already placed.
      expect(placedWhenFirst.length).toBeLessThan(entrants.length);
      expect(firstReleaseMs).toBeLessThan(2000);
      const order = drawOrder((await store.eventState(event.id)).seed as string, entrants).map((drawn) => drawn.uuid);
      expect(released).toEqual(order.slice(0, released.length));
      expect(await store.entrantsOf(event.id)).toEqual(order);
      for (const rank of [released.length, released.length + 1, 25_000, 49_999]) {
        expect((await store.position(order[rank], clock.now))?.position).toBe(rank - released.length + 1);
      }
      // Redis's own CPU a call over the opening, not SLOWLOG's wall time: on a machine shared with
      // other work a call of 5 ms is stretched past 50 ms whenever Redis is preempted in it.
      const cpuPerCall = ((await redisCpuMicros(admin)) - cpuBefore) / ((await scriptCalls(admin)) - callsBefore);
      expect(cpuPerCall).toBeLessThan(10_000);
    } finally {
      await store.close();
    }
  }, 120_000);

  it('should take up a placement where an instance stopped, losing and doubling nobody', async () => {
    const prefix = `restart${++rooms}:`;
    const first = new RedisStore(server.url, { prefix, commandTimeoutMs: 10_000 });
    const clock = { now: T0 };
    const one = scheduleOn(first, clock);
    await first.saveEvents(0, [event]);
    clock.now = PREQUEUE;
    await one.step();
    const entrants = await fill(first, 30_000);
    // The opening as an instance's schedule takes it, stopped after two steps of the draw and a release.
    clock.now = OPENING;
    const { seed } = await first.openEvent(event.id);
    for (;;) {
      const { uuids, mark } = await first.unkeyedEntrants(event.id, KEY_PAGE);
      await first.addDrawKeys(
        event.id,
        uuids.map((uuid) => ({ uuid, key: drawKey(seed as string, uuid) })),
        mark,
      );
      if (uuids.length < KEY_PAGE) break;
    }
    for (let step = 0; step < 2; step++) expect(await first.placeDrawn(event.id, 250)).toEqual({ placed: 250, done: false });
    const released = (await first.release(5, clock.now, drawing)).released.map((entry) => entry.uuid);
    await first.close();
    expect(await admin.llen(`${prefix}ev:${event.id}:order`)).toBe(500);

    const second = new RedisStore(server.url, { prefix, commandTimeoutMs: 10_000 });
    try {
      const two = scheduleOn(second, clock);
      await eventually(
        'the draw done by the other instance',
        async () => {
          await two.step();
          return (await second.eventState(event.id)).drawn;
        },
        (drawn) => drawn === true,
        20_000,
      );
      const order = drawOrder((await second.eventState(event.id)).seed as string, entrants).map((drawn) => drawn.uuid);
      expect(released).toEqual(order.slice(0, released.length));
      expect(await second.entrantsOf(event.id)).toEqual(order);
      const line = await admin.zrangebyscore(`${prefix}waiting`, '-inf', '+inf');
      expect(line).toEqual(order.slice(released.length));
    } finally {
      await second.close();
    }
  }, 120_000);
});
