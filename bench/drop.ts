/**
 * Drop day at scale: an event opening with a pre-queue of N (100,000 by default), on the memory
 * store and on the Redis store, through the server's own `EventSchedule` on a clock the bench moves.
 * For each store:
 * - memory per pre-queued visitor: the JS heap (memory store, after a full GC) or Redis's
 *   `used_memory` (Redis store), from before the pre-queue to N in it, divided by N;
 * - the opening: the draw's keys (SHA-256 and HMAC-SHA256 of each entrant; here all of them, as
 *   no release loop ticks while the bench fills the pre-queue: the worst case), its steps and the
 *   announcement, timed from the moment it is due to the moment the draw is done and every
 *   entrant has the position it gives; each position of a sample of 1,000 entrants is then checked
 *   against the draw recomputed apart (`BENCH_ONLY=opening-million` measures the first release).
 */
import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import Redis from 'ioredis';
import type { Clock } from '../server/domain/clock';
import { drawOrder } from '../server/domain/events/draw';
import { EventSchedule } from '../server/domain/events/schedule';
import { MemoryStore } from '../server/store/memory';
import { RedisStore } from '../server/store/redis/redis-store';
import type { QueueStore } from '../server/store/types';
import { heapAfterGc, usedMemory } from './probes';

export interface DropOptions {
  readonly entrants: number;
  /** Also on the Redis store, on this Redis (under a prefix of its own). */
  readonly redisUrl?: string;
  readonly log: (line: string) => void;
}

/** Each store's figures: bench/README.md says what each is. */
export type DropResult = Awaited<ReturnType<typeof measureDrop>>;

const T0 = Date.UTC(2030, 4, 1, 9, 0);
const PREQUEUE = T0 + 60_000;
const OPENING = T0 + 120_000;
const SAMPLE = 1000;

export async function measureDrop(options: DropOptions) {
  const rows = [await measureStore('memory', new MemoryStore(), options)];
  if (options.redisUrl) {
    const prefix = `drop-bench-${Date.now()}:`;
    // Room for the pre-queue's bursts of holds on a busy machine: the bench measures, it does not cut short.
    const store = new RedisStore(options.redisUrl, { prefix, commandTimeoutMs: 10_000 });
    const probe = new Redis(options.redisUrl);
    try {
      rows.push(await measureStore('redis', store, options, probe));
    } finally {
      await removeKeys(probe, prefix);
      probe.disconnect();
    }
  }
  return { entrants: options.entrants, rows };
}

async function measureStore(kind: 'memory' | 'redis', store: QueueStore, options: DropOptions, probe?: Redis) {
  const { entrants, log } = options;
  let now = T0;
  const clock: Clock = { now: () => now, every: () => () => undefined };
  const drawn: number[] = [];
  const quiet = () => undefined;
  const logger = {
    info: (fields: { ms?: number }) => fields.ms !== undefined && drawn.push(fields.ms),
    warn: quiet,
    error: quiet,
    debug: quiet,
  } as unknown as FastifyBaseLogger;
  const announced: number[] = [];
  const announcer = { publishOpened: async (_id: string, opened: { spread: number }) => void announced.push(opened.spread) };
  const schedule = new EventSchedule({ room: 'default', store, clock, log: logger, openingPollsPerSecond: 20_000, maxEvents: 100, announcer });
  try {
    const event = await schedule.create(drawnEvent('Bench drop', PREQUEUE, OPENING));
    now = PREQUEUE;
    await schedule.step();

    const before = await memoryOf(kind, probe);
    log(`drop (${kind} store): ${entrants} visitors entering the pre-queue…`);
    const request = { method: 'GET', uri: '/tickets?show=42' };
    const uuids: string[] = [];
    const filling = performance.now();
    for (let start = 0; start < entrants; start += 1000) {
      const batch = Array.from({ length: Math.min(1000, entrants - start) }, (_, i) => `session-${start + i}`);
      const held = await Promise.all(batch.map((session) => store.hold(session, 0, request, now)));
      uuids.push(...held.map((entry) => entry.uuid));
    }
    const holdsPerSecond = entrants / ((performance.now() - filling) / 1000);
    const bytesPerEntrant = ((await memoryOf(kind, probe)) - before) / entrants;

    log(`drop (${kind} store): the opening…`);
    now = OPENING;
    const opening = performance.now();
    await schedule.step();
    // The draw goes on in the background, in steps: done once the store says so.
    while (!(await store.eventState(event.id)).drawn) await new Promise((resolve) => setTimeout(resolve, 5));
    const openingMs = performance.now() - opening;

    // Every sampled entrant is where the draw, recomputed apart, puts them.
    const seed = (await store.eventState(event.id)).seed as string;
    const rank = new Map(drawOrder(seed, uuids).map((each, i) => [each.uuid, i + 1]));
    let misplaced = 0;
    for (let i = 0; i < SAMPLE; i++) {
      const uuid = uuids[Math.floor((i * uuids.length) / SAMPLE)];
      if ((await store.position(uuid, now))?.position !== rank.get(uuid)) misplaced++;
    }
    const round = (value: number) => Math.round(value * 10) / 10;
    return {
      store: kind,
      entrants,
      holdsPerSecond: Math.round(holdsPerSecond),
      bytesPerEntrant: Math.round(bytesPerEntrant),
      openingMs: round(openingMs),
      drawMs: round(drawn[0] ?? Number.NaN),
      misplaced,
      spreadMs: announced[0] ?? null,
    };
  } finally {
    await store.close();
  }
}

/** The memory this store's line takes: the JS heap after a full GC, or Redis's own count. */
async function memoryOf(kind: 'memory' | 'redis', probe?: Redis): Promise<number> {
  return kind === 'redis' && probe ? usedMemory(probe) : heapAfterGc();
}

async function removeKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

/** An event of an hour, its pre-queue from `prequeue` (ms), shuffled by the draw at `opening` (ms), under the room's limits. */
export function drawnEvent(name: string, prequeue: number, opening: number) {
  return {
    name,
    prequeueStartTime: new Date(prequeue).toISOString(),
    eventStartTime: new Date(opening).toISOString(),
    eventEndTime: new Date(opening + 3_600_000).toISOString(),
    shuffleAtEventStart: true,
    queueingMethod: 'fifo' as const,
    activeLimit: null,
    releasePerMinute: null,
    botChallenge: null,
  };
}
