/** A million in one room, on one Redis (docs/performance.md, "A million in one room"). */
import { performance } from 'node:perf_hooks';
import Redis from 'ioredis';
import { heapAfterGc, round, usedMemory } from './stats';
import { serverWithoutOrigin } from './capacity/rig';
import { DEFAULT_PREFIX } from '../server/redis/connection';
import { RedisStore } from '../server/store/redis/redis-store';
import type { ReleasePolicy } from '../server/store/types';

/** `checkpoints`: sizes on the way at which the loads are measured too (the full size always is). */
type MillionOptions = { places: number; checkpoints: readonly number[]; redisUrl: string; pageDir: string; log: (line: string) => void };

const t0 = Date.UTC(2030, 0, 1);
const policy: ReleasePolicy = { activeLimit: 10_000_000, sessionMs: 300_000, perMinute: 600, abandonMs: 24 * 3_600_000 };
const get = { method: 'GET', uri: '/tickets?show=42' };
const SLOW_US = 50_000;
const SAMPLE = 2000;
export async function measureMillion(options: MillionOptions) {
  const { places, redisUrl, log } = options;
  // The first room's own keys, so that the real server started on this Redis reads this line.
  const prefix = DEFAULT_PREFIX;
  const probe = new Redis(redisUrl);
  // The fill sends its calls by the thousand: a longer wait for each than a gateway's.
  const writer = new RedisStore(redisUrl, { prefix, localLine: false, commandTimeoutMs: 5000 });
  // The traffic meanwhile is a gateway's own, with its default timeout: a call Redis holds too long is refused.
  const others = new RedisStore(redisUrl, { prefix, localLine: false });
  let filledOffset = 0;
  let sessions = 0;
  /** The places the traffic polls, and how many polls it made. */
  let polled: string[] = [];
  let polls = 0;
  const released = new Set<string>();
  let now = t0;
  // A call refused (Redis held up by the machine's other work) did not run: the same session again, a few times.
  const holdOnce = async (session: string) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await writer.hold(session, 0, get, now);
      } catch (error) {
        if (attempt >= 5) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  };
  const arrive = (count: number) => Promise.all(Array.from({ length: count }, () => holdOnce(`s${++sessions}`)));
  try {
    await arrive(1);
    const before = await usedMemory(probe);
    const loads: Awaited<ReturnType<typeof loadInPages>>[] = [];
    const filling = performance.now();
    const sizes = [...options.checkpoints.filter((size) => size < places), places];
    for (const size of sizes) {
      log(`million: filling the line to ${size} places…`);
      while (sessions < size) {
        // Two batches on their way at once: Redis runs one while the other is built and read.
        await Promise.all([arrive(Math.min(1000, size - sessions)), arrive(Math.max(0, Math.min(1000, size - sessions - 1000)))]);
        if (sessions % 100_000 < 2000) log(`million: ${sessions} places, ${Math.round((performance.now() - filling) / 1000)} s`);
      }
      const paused = performance.now();
      loads.push(await loadInPages(size));
      if (size === places) break;
      // The measurements are not part of the fill's time.
      filledOffset += performance.now() - paused;
    }
    const fillSeconds = (performance.now() - filling - filledOffset) / 1000;
    const redisBytesPerPlace = Math.round(((await usedMemory(probe)) - before) / places);
    const statsMs = await timed(() => Promise.all([writer.stats(now), writer.recentReleases()]));
    log(`million: /admin/stats and the console's /admin/live over HTTP at ${places} places…`);
    return {
      places,
      fillSeconds: Math.round(fillSeconds),
      holdsPerSecond: Math.round(places / fillSeconds),
      redisBytesPerPlace,
      loads,
      statsMs,
      overHttp: await adminOverHttp(redisUrl, options.pageDir),
    };
  } finally {
    await Promise.all([writer.close(), others.close()]);
    probe.disconnect();
  }

  /**
   * Arrivals, releases and polls while `during` runs: the calls made and those refused, the places
   * released twice, and `reader`'s answers larger than its earlier ones for the same place.
   */
  async function withTraffic<T>(during: () => Promise<T>, reader: RedisStore) {
    const counts = { refused: 0, trafficCalls: 0, grew: 0, releasedTwice: 0 };
    const told = new Map<string, number>();
    const poll = async (uuid: string) => {
      const answer = await reader.position(uuid, now);
      const before = told.get(uuid);
      if (answer && answer.position > 0) {
        if (before !== undefined && answer.position > before) counts.grew++;
        told.set(uuid, answer.position);
      }
    };
    const release = async () => {
      for (const entry of (await others.release(2, now, policy)).released) {
        if (released.has(entry.uuid)) counts.releasedTwice++;
        released.add(entry.uuid);
      }
    };
    let flowing = true;
    const traffic = (async () => {
      while (flowing) {
        now += 20;
        const steps: Promise<unknown>[] = [
          ...Array.from({ length: 5 }, () => others.hold(`s${++sessions}`, 0, get, now)),
          release(),
          ...Array.from({ length: 20 }, () => poll(polled[polls++ % polled.length])),
        ];
        counts.trafficCalls += steps.length;
        await Promise.all(steps.map((step) => step.catch(() => counts.refused++)));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    try {
      return [await during(), counts] as const;
    } finally {
      flowing = false;
      await traffic;
    }
  }

  async function slowlogReset(): Promise<void> {
    await probe.config('SET', 'slowlog-log-slower-than', '1000');
    await probe.config('SET', 'slowlog-max-len', '10000');
    await probe.slowlog('RESET');
  }

  /** The longest call since the reset, and the calls over 50 ms (the bench's own SLOWLOG and CONFIG calls left out). */
  async function longest() {
    const entries = ((await probe.slowlog('GET', 10_000)) as [number, number, number, string[]][])
      .filter(([, , , command]) => !['slowlog', 'config', 'info'].includes(command[0].toLowerCase()))
      .map(([, , micros, command]) => ({
        ms: round(micros / 1000, 1),
        call: ['evalsha', 'eval'].includes(command[0].toLowerCase()) ? 'a script' : command[0].toLowerCase(),
      }))
      .sort((a, b) => b.ms - a.ms);
    const slowCalls = entries.filter((entry) => entry.ms > SLOW_US / 1000).length;
    return { longestCallMs: entries[0]?.ms ?? 0, longestCall: entries[0]?.call ?? '–', slowCalls };
  }

  /** Uuids spread over the line, one every size / SAMPLE places. */
  async function spread(size: number): Promise<string[]> {
    const ranks = Array.from({ length: SAMPLE }, (_, i) => String(Math.floor((i * size) / SAMPLE)));
    return (await Promise.all(ranks.map((rank) => probe.zrange(`${prefix}waiting`, rank, rank)))).flat();
  }

  async function loadInPages(size: number) {
    log(`million: a gateway joins at ${size} places, its copy loaded in pages…`);
    const heapBefore = heapAfterGc();
    polled = await spread(size);
    await slowlogReset();
    const gateway = new RedisStore(redisUrl, { prefix });
    try {
      const [loadMs, traffic] = await withTraffic(async () => {
        const start = performance.now();
        await gateway.position(`nobody`, now);
        while (!gateway.answersFromCopy) {
          if (performance.now() - start > 120_000) return null;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        return performance.now() - start;
      }, gateway);
      const slow = await longest();
      const gatewayBytesPerPlace = Math.round((heapAfterGc() - heapBefore) / size);
      // Once the log has brought the last changes: the copy's answers against Redis's.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const uuids = await spread(size - 10_000);
      let wrong = 0;
      for (const uuid of uuids) {
        const [copied, truth] = await Promise.all([gateway.position(uuid, now), writer.position(uuid, now)]);
        if (copied?.position !== truth?.position) wrong++;
      }
      return { places: size, loadMs: loadMs === null ? null : round(loadMs, 1), ...slow, ...traffic, gatewayBytesPerPlace, wrong };
    } finally {
      await gateway.close();
    }
  }
}

/**
 * The operator's calls as the console makes them, of the real server on the filled line: 50 of
 * `GET /admin/stats` and 50 of `GET /admin/live` (the console's first read: the samples of the
 * last hour), one at a time, each timed from the request to the end of its answer.
 */
async function adminOverHttp(redisUrl: string, pageDir: string) {
  const settings = { activeLimit: 1, releasePerMinute: 0, sessionSeconds: 3600, pageDir, redisUrl };
  const { server, admin } = await serverWithoutOrigin('bench server (Redis store, a million waiting)', settings);
  try {
    const { waiting } = (await admin('GET', '/admin/stats')) as { waiting: number };
    return { waiting, statsMs: await timed(() => admin('GET', '/admin/stats')), liveMs: await timed(() => admin('GET', '/admin/live')) };
  } finally {
    await server.stop();
  }
}

/** `call` 50 times, one at a time: the median and the longest, ms. */
async function timed(call: () => Promise<unknown>) {
  const times: number[] = [];
  for (let i = 0; i < 50; i++) {
    const start = performance.now();
    await call();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { median: round(times[25], 1), max: round(times[49], 1) };
}
