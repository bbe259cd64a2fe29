/**
 * An event opening with a pre-queue of N (a million by default) on one Redis, through the server's
 * own `EventSchedule` on a clock the bench moves, the pre-queue filled by the store's own `hold`:
 * - the pre-queue: holds a second, and how long after the last arrival every entrant's draw key
 *   is kept (the keys are computed while the pre-queue fills, on the release loop's ticks);
 * - the opening: from the moment it is due to the first entrant released (goal ≤ 2 s), and to the
 *   whole order in place (the draw marked done, goal ≤ 10 s), releasing all the while as the draw
 *   allows; the longest Redis call over the opening (SLOWLOG, goal ≤ 50 ms);
 * - the check: the releases made during the placement are the draw's first ranks, in order, and a
 *   sample of 1,000 entrants have the position the draw, recomputed apart, gives them.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import Redis from 'ioredis';
import type { Clock } from '../server/domain/clock';
import { drawOrder } from '../server/domain/events/draw';
import { EventSchedule } from '../server/domain/events/schedule';
import { RedisStore } from '../server/store/redis/redis-store';
import type { ReleasePolicy } from '../server/store/types';
import { drawnEvent } from './drop';
import { redisCpuSeconds, usedMemory } from './probes';

export interface OpeningMillionOptions {
  readonly entrants: number;
  readonly redisUrl: string;
  readonly log: (line: string) => void;
}

export interface OpeningMillionResult {
  readonly entrants: number;
  /** Places taken a second while the pre-queue filled (`hold`, 2,000 at a time). */
  readonly holdsPerSecond: number;
  /** From the last arrival to every entrant keyed, ms (the keys follow the pre-queue as it fills). */
  readonly keyedAfterMs: number;
  /** From the opening due to the first entrant released, ms. */
  readonly firstReleaseMs: number;
  /** From the opening due to the draw done (every entrant in place), ms. */
  readonly orderInPlaceMs: number;
  /** Entrants released while the draw was placed (the bench releases 500 every 100 ms). */
  readonly releasedDuringPlacement: number;
  /** Releases that were not the draw's next rank (must be 0). */
  readonly releasedOutOfOrder: number;
  /** Sampled entrants whose position is not the one the draw gives (must be 0). */
  readonly misplaced: number;
  /** The longest Redis call during the opening (SLOWLOG), µs, and its command; 0 when none took 5 ms. */
  readonly longestCallUs: number;
  readonly longestCall: string;
  /** Redis calls of 50 ms or more during the opening (must be 0). */
  readonly callsOver50ms: number;
  /** Redis's own CPU time from the opening to the order in place (used_cpu_user + sys), ms: what the steps cost it, whatever else the machine runs. */
  readonly redisCpuMs: number;
  /** The machine's load average (1 min) at the opening: on a shared machine, wall times stretch with it. */
  readonly loadAverage: number;
  /** Redis's used_memory with the pre-queue in it and its keys, bytes per entrant. */
  readonly redisBytesPerEntrant: number;
}

const T0 = Date.UTC(2030, 4, 1, 9, 0);
const PREQUEUE = T0 + 60_000;
const OPENING = T0 + 3_600_000;
const SAMPLE = 1000;
/** What the SLOWLOG records during the opening: every call of 5 ms or more. */
const SLOWLOG_FROM_US = 5000;

export async function measureOpeningMillion({ entrants, redisUrl, log }: OpeningMillionOptions): Promise<OpeningMillionResult> {
  const prefix = `opening-bench-${Date.now()}:`;
  // Room for the pre-queue's bursts of 2,000 holds on a busy machine: the bench measures, it does not cut short.
  const store = new RedisStore(redisUrl, { prefix, localLine: false, commandTimeoutMs: 10_000 });
  const probe = new Redis(redisUrl);
  let now = T0;
  const clock: Clock = { now: () => now, every: () => () => undefined };
  const quiet = () => undefined;
  const logger = { info: quiet, warn: quiet, error: quiet, debug: quiet } as unknown as FastifyBaseLogger;
  const announcer = { publishOpened: async () => undefined };
  const schedule = new EventSchedule({ room: 'default', store, clock, log: logger, openingPollsPerSecond: 20_000, maxEvents: 100, announcer });
  try {
    const event = await schedule.create(drawnEvent('Bench opening', PREQUEUE, OPENING));
    now = PREQUEUE;
    await schedule.step();
    const memoryBefore = await usedMemory(probe);

    log(`opening-million: ${entrants} visitors entering the pre-queue…`);
    const request = { method: 'GET', uri: '/tickets?show=42' };
    const uuids: string[] = [];
    const filling = performance.now();
    let ticked = performance.now();
    for (let start = 0; start < entrants; start += 2000) {
      const batch = Array.from({ length: Math.min(2000, entrants - start) }, (_, i) => `session-${start + i}`);
      const held = await Promise.all(batch.map((session) => store.hold(session, 0, request, now)));
      for (const entry of held) uuids.push(entry.uuid);
      // The release loop's tick, every second: it keys the arrivals so far, in the background.
      if (performance.now() - ticked >= 1000) {
        ticked = performance.now();
        now += 1000;
        void schedule.step();
      }
      if (start % 100_000 === 0 && start > 0) log(`opening-million: ${start} in the pre-queue`);
    }
    const filled = performance.now();
    const holdsPerSecond = entrants / ((filled - filling) / 1000);
    while ((await store.unkeyedEntrants(event.id, 1)).uuids.length > 0) {
      now += 1000;
      await schedule.step();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const keyedAfterMs = performance.now() - filled;
    const redisBytesPerEntrant = ((await usedMemory(probe)) - memoryBefore) / entrants;

    log('opening-million: the opening…');
    await probe.config('SET', 'slowlog-log-slower-than', String(SLOWLOG_FROM_US));
    await probe.config('SET', 'slowlog-max-len', '10000');
    await probe.slowlog('RESET');
    const policy: ReleasePolicy = { activeLimit: 10_000_000, sessionMs: 3_600_000, perMinute: 0, abandonMs: 3_600_000, drawing: event.id };
    const released: string[] = [];
    const loadAverage = Math.round(os.loadavg()[0] * 10) / 10;
    const cpuBefore = await redisCpu(probe);
    now = OPENING;
    const opening = performance.now();
    await schedule.step();
    let firstReleaseMs = Number.NaN;
    while (Number.isNaN(firstReleaseMs)) {
      const { released: first } = await store.release(1, now, policy);
      if (first.length > 0) {
        firstReleaseMs = performance.now() - opening;
        released.push(first[0].uuid);
      }
    }
    let orderInPlaceMs = Number.NaN;
    while (Number.isNaN(orderInPlaceMs)) {
      if ((await store.eventState(event.id)).drawn) orderInPlaceMs = performance.now() - opening;
      else {
        for (const entry of (await store.release(500, now, policy)).released) released.push(entry.uuid);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const redisCpuMs = (await redisCpu(probe)) - cpuBefore;
    const slow = (await probe.slowlog('GET', 10_000)) as [number, number, number, string[]][];
    const longest = slow.reduce<[number, number, number, string[]] | undefined>((most, call) => (!most || call[2] > most[2] ? call : most), undefined);
    const callsOver50ms = slow.filter((call) => call[2] >= 50_000).length;

    log('opening-million: checking the order against the draw recomputed apart…');
    const seed = (await store.eventState(event.id)).seed as string;
    const order = drawOrder(seed, uuids).map((drawn) => drawn.uuid);
    const releasedOutOfOrder = released.filter((uuid, i) => order[i] !== uuid).length;
    let misplaced = 0;
    for (let i = 0; i < SAMPLE; i++) {
      const rank = released.length + Math.floor((i * (order.length - released.length)) / SAMPLE);
      if ((await store.position(order[rank], now))?.position !== rank - released.length + 1) misplaced++;
    }
    return {
      entrants,
      holdsPerSecond: Math.round(holdsPerSecond),
      keyedAfterMs: Math.round(keyedAfterMs),
      firstReleaseMs: Math.round(firstReleaseMs),
      orderInPlaceMs: Math.round(orderInPlaceMs),
      releasedDuringPlacement: released.length,
      releasedOutOfOrder,
      misplaced,
      longestCallUs: longest ? longest[2] : 0,
      longestCall: longest ? longest[3].slice(0, 1).join(' ') : '',
      callsOver50ms,
      redisCpuMs: Math.round(redisCpuMs),
      loadAverage,
      redisBytesPerEntrant: Math.round(redisBytesPerEntrant),
    };
  } finally {
    await store.close();
    await probe.config('SET', 'slowlog-log-slower-than', '10000');
    await removeKeys(probe, prefix);
    probe.disconnect();
  }
}

/** Redis's CPU time so far, ms. */
const redisCpu = async (probe: Redis) => (await redisCpuSeconds(probe)) * 1000;

async function removeKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}
