/**
 * What queue_info's store step (`store.position`: the visitor's rank among those still waiting,
 * marked as seen) costs as the line grows: timed call by call at 1,000 and at 100,000 waiting,
 * on the memory store and, when a Redis URL is given, on the Redis store. A position is a rank
 * in O(log n), so the ratio 100,000 ÷ 1,000 should stay near 1–2, far from the 100 of a scan.
 *
 * Each line has holes, as a real one does: one visitor in ten walked away and was swept out.
 *
 * Beside it, `store.touch` on the same line: the same lookup of the visitor and the same
 * last-seen write, without the rank. A large line costs more per call even in O(1), as its
 * entries no longer fit in the CPU's caches; the touch shows how much of the growth that is.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import Redis from 'ioredis';
import { MemoryStore } from '../server/store/memory';
import { RedisStore } from '../server/store/redis/redis-store';
import type { QueueStore } from '../server/store/types';
import { mulberry32, percentile } from './stats';

export interface PositionCostOptions {
  /** The line lengths measured. */
  readonly lines: readonly number[];
  /** Timed calls per line length (after as many untimed ones to warm up). */
  readonly samples: number;
  /** Also measure the Redis store on this Redis (each line under a prefix of its own, removed after). */
  readonly redisUrl?: string;
}

export interface PositionCostRow {
  readonly store: 'memory' | 'redis';
  readonly waiting: number;
  readonly samples: number;
  /** One call, as queue_info awaits it (for Redis: the round trip). */
  readonly p50Micros: number;
  readonly p99Micros: number;
  /** Redis only: the script's own time inside redis-server, mean per call (INFO commandstats). */
  readonly inRedisMicros?: number;
  /** `store.touch`, the same call without the rank, on the same line. */
  readonly touchP50Micros: number;
  readonly touchP99Micros: number;
}

export interface PositionCostResult {
  readonly settings: { readonly lines: readonly number[]; readonly samples: number; readonly walkedAway: number };
  readonly rows: readonly PositionCostRow[];
  /** For each store: the longest line's figures over the shortest's. */
  readonly ratios: readonly {
    readonly store: 'memory' | 'redis';
    readonly p50: number;
    readonly p99: number;
    readonly inRedis?: number;
    readonly touchP50: number;
    readonly touchP99: number;
  }[];
}

export const DEFAULT_POSITION_COST_OPTIONS: PositionCostOptions = { lines: [1_000, 100_000], samples: 20_000 };

/** One visitor in this many walked away and was swept out before the timing. */
const WALKED_AWAY_EVERY = 10;
const t0 = 1_700_000_000_000;

export async function measurePositionCost(options: PositionCostOptions): Promise<PositionCostResult> {
  const rows: PositionCostRow[] = [...(await measureStore('memory', () => new MemoryStore(), options))];
  if (options.redisUrl) {
    const { redisUrl } = options;
    const probe = new Redis(redisUrl);
    const prefixes: string[] = [];
    try {
      const open = (waiting: number) => {
        const prefix = `position-cost-${waiting}-${randomBytes(4).toString('hex')}:`;
        prefixes.push(prefix);
        return new RedisStore(redisUrl, { prefix, commandTimeoutMs: 10_000 });
      };
      rows.push(...(await measureStore('redis', open, options, probe)));
    } finally {
      for (const prefix of prefixes) await removeKeys(probe, prefix);
      probe.disconnect();
    }
  }
  return {
    settings: { lines: options.lines, samples: options.samples, walkedAway: 1 / WALKED_AWAY_EVERY },
    rows,
    ratios: (['memory', 'redis'] as const).flatMap((store) => {
      const own = rows.filter((row) => row.store === store).sort((a, b) => a.waiting - b.waiting);
      if (own.length < 2) return [];
      const [short, long] = [own[0], own[own.length - 1]];
      const ratio = (a?: number, b?: number) => (a === undefined || b === undefined ? undefined : Math.round((a / b) * 100) / 100);
      return [
        {
          store,
          p50: ratio(long.p50Micros, short.p50Micros)!,
          p99: ratio(long.p99Micros, short.p99Micros)!,
          inRedis: ratio(long.inRedisMicros, short.inRedisMicros),
          touchP50: ratio(long.touchP50Micros, short.touchP50Micros)!,
          touchP99: ratio(long.touchP99Micros, short.touchP99Micros)!,
        },
      ];
    }),
  };
}

/** Calls timed in a row on one line before the next line's turn. */
const SLICE = 500;

/**
 * Fills one store per line length, then times the lines in alternating slices, so that the
 * machine's load (other processes on a shared machine) weighs on every line alike.
 */
async function measureStore(
  kind: 'memory' | 'redis',
  open: (waiting: number) => QueueStore,
  options: PositionCostOptions,
  probe?: Redis,
): Promise<PositionCostRow[]> {
  const lines: { waiting: number; store: QueueStore; uuids: string[]; random: () => number; position: number[]; touch: number[] }[] = [];
  let now = t0 + 10_000;
  try {
    for (const waiting of options.lines) {
      const line = { waiting, store: open(waiting), uuids: [] as string[], random: mulberry32(waiting), position: [], touch: [] };
      lines.push(line);
      line.uuids = await fillLine(line.store, waiting);
    }
    const pick = (line: (typeof lines)[number]) => line.uuids[Math.floor(line.random() * line.uuids.length)];
    const time = async (line: (typeof lines)[number], call: (uuid: string, now: number) => Promise<unknown>, into: number[]) => {
      for (let i = 0; i < SLICE; i++) {
        const uuid = pick(line);
        const started = performance.now();
        await call(uuid, now++);
        into.push((performance.now() - started) * 1000);
      }
    };
    for (const line of lines) for (let i = 0; i < options.samples; i++) await line.store.position(pick(line), now++);
    for (let done = 0; done < options.samples; done += SLICE) {
      for (const line of lines) await time(line, (uuid, at) => line.store.position(uuid, at), line.position);
      for (const line of [...lines].reverse()) await time(line, (uuid, at) => line.store.touch(uuid, at), line.touch);
    }
    const inRedis: (number | undefined)[] = [];
    for (const line of lines) {
      if (!probe) break;
      await probe.config('RESETSTAT');
      for (let i = 0; i < options.samples; i++) await line.store.position(pick(line), now++);
      inRedis.push(scriptMicrosPerCall(await probe.info('commandstats')));
    }
    const round = (value: number) => Math.round(value * 100) / 100;
    return lines.map((line, i) => ({
      store: kind,
      waiting: line.waiting,
      samples: line.position.length,
      p50Micros: round(percentile(line.position, 50)),
      p99Micros: round(percentile(line.position, 99)),
      ...(inRedis[i] !== undefined && { inRedisMicros: round(inRedis[i]) }),
      touchP50Micros: round(percentile(line.touch, 50)),
      touchP99Micros: round(percentile(line.touch, 99)),
    }));
  } finally {
    await Promise.all(lines.map((line) => line.store.close()));
  }
}

/**
 * Holds `waiting` visitors plus the ones who walk away (one in ten, spread along the line) and
 * sweeps those out, so that `waiting` remain with holes between them. Returns the remaining uuids.
 */
async function fillLine(store: QueueStore, waiting: number): Promise<string[]> {
  const total = Math.round((waiting * WALKED_AWAY_EVERY) / (WALKED_AWAY_EVERY - 1));
  const request = { method: 'GET', uri: '/checkout?item=42' };
  const stays: string[] = [];
  for (let start = 0; start < total; start += 1000) {
    const batch = Array.from({ length: Math.min(1000, total - start) }, (_, i) => start + i);
    const held = await Promise.all(batch.map((i) => store.hold(`session-${i}`, 0, request, t0)));
    held.forEach((entry, i) => {
      if (batch[i] % WALKED_AWAY_EVERY !== 5) stays.push(entry.uuid);
    });
  }
  // The others poll a while later; those who walked away do not.
  for (let start = 0; start < stays.length; start += 1000) {
    await Promise.all(stays.slice(start, start + 1000).map((uuid) => store.touch(uuid, t0 + 5_000)));
  }
  while ((await store.dropAbandoned(t0 + 5_000, 1_000)) > 0);
  const { waiting: left } = await store.stats(t0 + 5_000);
  if (left !== stays.length) throw new Error(`expected ${stays.length} waiting after the sweep, found ${left}`);
  return stays;
}

/** The mean time (µs) of the scripts run, from INFO commandstats (EVALSHA, and EVAL when a script was loaded). */
function scriptMicrosPerCall(info: string): number | undefined {
  let calls = 0;
  let usec = 0;
  for (const match of info.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+),usec=(\d+)/gm)) {
    calls += Number(match[1]);
    usec += Number(match[2]);
  }
  return calls > 0 ? usec / calls : undefined;
}

async function removeKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}
