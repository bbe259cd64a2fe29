/**
 * An event opening with a pre-queue (docs/performance.md, "Drop day" and "An opening of a
 * million"), through the server's own `EventSchedule` on a clock the bench moves. `measureDrop`
 * keys everyone at the opening (no release loop ticks while it fills: the worst case).
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import Redis from 'ioredis';
import { drawOrder } from '../server/domain/events/draw';
import { EventSchedule, KEY_PAGE } from '../server/domain/events/schedule';
import { RankedLine } from '../server/store/ranked-line';
import { MemoryStore } from '../server/store/memory';
import { RedisStore } from '../server/store/redis/redis-store';
import type { QueueStore, ReleasePolicy } from '../server/store/types';
import { heapAfterGc, redisCpuSeconds, round, usedMemory } from './stats';

type Log = (line: string) => void;
const T0 = Date.UTC(2030, 4, 1, 9, 0);
const PREQUEUE = T0 + 60_000;
const SAMPLE = 1000;

/** A drawn event on `store`, its pre-queue open, and `fill`, which pre-queues `entrants` `batch` at a time (`tick`: the release loop's, every second). */
async function preQueue(store: QueueStore, opening: number, on: { draw?: (ms: number) => void; spread?: (spread: number) => void } = {}) {
  const clock = { now: () => clock.at, every: () => () => undefined, at: T0 };
  const quiet = () => undefined;
  const log = { info: (fields: { ms?: number }) => fields.ms !== undefined && on.draw?.(fields.ms), warn: quiet, error: quiet, debug: quiet };
  const announcer = { publishOpened: async (_id: string, opened: { spread: number }) => on.spread?.(opened.spread) };
  const schedule = new EventSchedule({ room: 'default', store, clock, log, openingPollsPerSecond: 20_000, maxEvents: 100, announcer });
  // An event of an hour, shuffled by the draw at its opening, under the room's limits.
  const event = await schedule.create({
    ...{ name: 'Bench opening', shuffleAtEventStart: true, queueingMethod: 'fifo', activeLimit: null, releasePerMinute: null, botChallenge: null },
    ...{ prequeueStartTime: new Date(PREQUEUE).toISOString(), eventStartTime: new Date(opening).toISOString() },
    eventEndTime: new Date(opening + 3_600_000).toISOString(),
  });
  clock.at = PREQUEUE;
  await schedule.step();
  const request = { method: 'GET', uri: '/tickets?show=42' };
  const uuids: string[] = [];
  const fill = async (entrants: number, batch: number, log: Log, tick: boolean) => {
    const started = performance.now();
    let ticked = started;
    for (let start = 0; start < entrants; start += batch) {
      const sessions = Array.from({ length: Math.min(batch, entrants - start) }, (_, i) => `session-${start + i}`);
      for (const entry of await Promise.all(sessions.map((session) => store.hold(session, 0, request, clock.at)))) uuids.push(entry.uuid);
      // The release loop's tick: it keys the arrivals so far, in the background.
      if (tick && performance.now() - ticked >= 1000) {
        ticked = performance.now();
        clock.at += 1000;
        void schedule.step();
      }
      if (start % 100_000 === 0 && start > 0) log(`  ${start} in the pre-queue`);
    }
    return Math.round(entrants / ((performance.now() - started) / 1000));
  };
  /** Sampled entrants (after the `released` first) not at the position the draw recomputed apart gives them. */
  const misplaced = async (released: number) => {
    const order = drawOrder((await store.eventState(event.id)).seed as string, uuids).map((drawn) => drawn.uuid);
    let wrong = 0;
    for (let i = 0; i < SAMPLE; i++) {
      const rank = released + Math.floor((i * (order.length - released)) / SAMPLE);
      if ((await store.position(order[rank], clock.at))?.position !== rank - released + 1) wrong++;
    }
    return { order, misplaced: wrong };
  };
  return { event, schedule, clock, fill, misplaced };
}

/** Drop day: `entrants` pre-queued on the memory store, then on Redis. */
export async function measureDrop(options: { readonly entrants: number; readonly redisUrl: string; readonly log: Log }) {
  const memory = await dropOn('memory', new MemoryStore(), options);
  const probe = new Redis(options.redisUrl);
  try {
    // Room for the pre-queue's bursts of holds on a busy machine: the bench measures, it does not cut short.
    const store = new RedisStore(options.redisUrl, { prefix: `drop-bench-${Date.now()}:`, commandTimeoutMs: 10_000 });
    return { entrants: options.entrants, rows: [memory, await dropOn('redis', store, options, probe)] };
  } finally {
    probe.disconnect();
  }
}

async function dropOn(kind: 'memory' | 'redis', store: QueueStore, { entrants, log }: { entrants: number; log: Log }, probe?: Redis) {
  const drawn: number[] = [];
  const announced: number[] = [];
  const opening = T0 + 120_000;
  // The memory this store's line takes: the JS heap after a full GC, or Redis's own count.
  const memory = () => (probe ? usedMemory(probe) : Promise.resolve(heapAfterGc()));
  try {
    const line = await preQueue(store, opening, { draw: (ms) => drawn.push(ms), spread: (spread) => announced.push(spread) });
    const before = await memory();
    log(`drop (${kind} store): ${entrants} visitors entering the pre-queue…`);
    const holdsPerSecond = await line.fill(entrants, 1000, log, false);
    const bytesPerEntrant = ((await memory()) - before) / entrants;
    log(`drop (${kind} store): the opening…`);
    line.clock.at = opening;
    const started = performance.now();
    await line.schedule.step();
    // The draw goes on in the background, in steps: done once the store says so.
    while (!(await store.eventState(line.event.id)).drawn) await sleep(5);
    const openingMs = performance.now() - started;
    return {
      store: kind,
      entrants,
      holdsPerSecond,
      bytesPerEntrant: Math.round(bytesPerEntrant),
      openingMs: round(openingMs, 1),
      drawMs: round(drawn[0] ?? Number.NaN, 1),
      misplaced: (await line.misplaced(0)).misplaced,
      spreadMs: announced[0] ?? null,
    };
  } finally {
    await store.close();
  }
}

/**
 * What a copy of the line (line-copy.ts) pays for each entrant keyed into its draw slot, µs: a
 * line of `entrants` arrivals, each moved to a slot among the others in a random order (as keys
 * fall), in pages of KEY_PAGE, a rank read after each page as the polls do.
 */
function copyKeyingCost(entrants: number): number {
  const line = new RankedLine();
  const arrivals = 2 ** 36;
  for (let i = 1; i <= entrants; i++) line.push(arrivals + i, `a${i}`);
  const slots = Array.from({ length: entrants }, (_, i) => 16 * (i + 1));
  for (let i = entrants - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [slots[i], slots[j]] = [slots[j], slots[i]];
  }
  const started = performance.now();
  for (let i = 0; i < entrants; i++) {
    line.remove(arrivals + i + 1);
    line.place(slots[i], `a${i + 1}`);
    if ((i + 1) % KEY_PAGE === 0) line.rank(slots[i]);
  }
  return round(((performance.now() - started) * 1000) / entrants, 2);
}

/** An opening of `entrants` pre-queued on one Redis, releasing 500 every 100 ms as the draw allows. */
export async function measureOpeningMillion({ entrants, redisUrl, log }: { entrants: number; redisUrl: string; log: Log }) {
  const prefix = `opening-bench-${Date.now()}:`;
  // Room for the pre-queue's bursts of 2,000 holds on a busy machine: the bench measures, it does not cut short.
  const store = new RedisStore(redisUrl, { prefix, localLine: false, commandTimeoutMs: 10_000 });
  const probe = new Redis(redisUrl);
  const opening = T0 + 3_600_000;
  try {
    const line = await preQueue(store, opening);
    const { event, clock } = line;
    const memoryBefore = await usedMemory(probe);
    log(`opening-million: ${entrants} visitors entering the pre-queue…`);
    const holdsPerSecond = await line.fill(entrants, 2000, log, true);
    const filled = performance.now();
    // The keying left once the pre-queue is full, alone: Redis's CPU an entrant it keys and moves to its slot.
    const keyedWhileFilling = await probe.zcard(`${prefix}ev:${event.id}:keys`);
    const keyingCpuBefore = await redisCpuSeconds(probe);
    while ((await store.unkeyedEntrants(event.id, 1)).uuids.length > 0) {
      clock.at += 1000;
      await line.schedule.step();
      await sleep(50);
    }
    const keyedAfterMs = Math.round(performance.now() - filled);
    const keyingRedisUs = round((((await redisCpuSeconds(probe)) - keyingCpuBefore) * 1e6) / Math.max(1, entrants - keyedWhileFilling), 1);
    const redisBytesPerEntrant = Math.round(((await usedMemory(probe)) - memoryBefore) / entrants);

    log('opening-million: the opening…');
    // Every call of 5 ms or more.
    await probe.config('SET', 'slowlog-log-slower-than', '5000');
    await probe.config('SET', 'slowlog-max-len', '10000');
    await probe.slowlog('RESET');
    const policy: ReleasePolicy = { activeLimit: 10_000_000, sessionMs: 3_600_000, perMinute: 0, abandonMs: 3_600_000, drawing: event.id };
    const released: string[] = [];
    const loadAverage = round(os.loadavg()[0], 1);
    const cpuBefore = await redisCpuSeconds(probe);
    clock.at = opening;
    const started = performance.now();
    await line.schedule.step();
    let firstReleaseMs = Number.NaN;
    while (Number.isNaN(firstReleaseMs)) {
      const { released: first } = await store.release(1, clock.at, policy);
      if (first.length > 0) {
        firstReleaseMs = Math.round(performance.now() - started);
        released.push(first[0].uuid);
      }
    }
    let orderInPlaceMs = Number.NaN;
    while (Number.isNaN(orderInPlaceMs)) {
      if ((await store.eventState(event.id)).drawn) orderInPlaceMs = Math.round(performance.now() - started);
      else {
        for (const entry of (await store.release(500, clock.at, policy)).released) released.push(entry.uuid);
        await sleep(100);
      }
    }
    const redisCpuMs = Math.round(((await redisCpuSeconds(probe)) - cpuBefore) * 1000);
    const slow = (await probe.slowlog('GET', 10_000)) as [number, number, number, string[]][];
    const longest = slow.reduce<(typeof slow)[number] | undefined>((most, call) => (!most || call[2] > most[2] ? call : most), undefined);

    log('opening-million: checking the order against the draw recomputed apart…');
    const { order, misplaced } = await line.misplaced(released.length);
    return {
      entrants,
      holdsPerSecond,
      keyedAfterMs,
      keyingRedisUs,
      firstReleaseMs,
      orderInPlaceMs,
      releasedDuringPlacement: released.length,
      releasedOutOfOrder: released.filter((uuid, i) => order[i] !== uuid).length,
      misplaced,
      longestCallUs: longest ? longest[2] : 0,
      longestCall: longest ? longest[3].slice(0, 1).join(' ') : '',
      callsOver50ms: slow.filter((call) => call[2] >= 50_000).length,
      redisCpuMs,
      loadAverage,
      redisBytesPerEntrant,
      copyKeyingUs: copyKeyingCost(entrants),
    };
  } finally {
    await store.close();
    probe.disconnect();
  }
}
