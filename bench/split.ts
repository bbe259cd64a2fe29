/**
 * One room split across a Cluster's shards beside the same room whole (docs/performance.md, "One
 * room across shards"): the same arrivals, polls and releases, through several instances of the
 * store as several gateways hold them, on a local Cluster of three primaries. Each phase's Redis
 * CPU is read on every primary: the busiest primary's share is what bounds the room, since a
 * shard's core is a room's ceiling.
 */
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { startRedisCluster } from '../spec/support/redis-topologies';
import type { RedisTarget } from '../server/redis/connection';
import { roomPrefix } from '../server/redis/target';
import { PartedLine } from '../server/store/redis/parted-line';
import { RedisStore } from '../server/store/redis/redis-store';
import type { QueueStore, ReleasePolicy } from '../server/store/types';
import { cpuSeconds, infoField, round } from './stats';

/** Where the figures are kept apart from `latest.json` (run.ts), for the docs. */
export const SPLIT_FILE = 'split.json';

type SplitOptions = { arrivals: number; parts: number; log: (line: string) => void };

/** Store instances sharing the room, as gateway processes do; each keeps copies of the line. */
const INSTANCES = 4;
/** Calls under way at once over all of them. */
const CONCURRENCY = 64;
/** Places a release takes, as the admin API's or a loop's step; one step at a time on each instance. */
const RELEASE_STEP = 100;
const get = { method: 'GET', uri: '/checkout' };
const limits = { activeLimit: 1, sessionMs: 3_600_000 };
const policy: ReleasePolicy = { ...limits, activeLimit: 10_000_000, perMinute: 0, abandonMs: 3_600_000 };

/** One phase's figures, each ÷ its operations. */
interface Phase {
  readonly operations: number;
  /** Redis CPU on every primary together, µs. */
  readonly redisMicros: number;
  /** The busiest primary's share of that CPU. */
  readonly busiestShare: number;
  /** The room's ceiling on this Cluster: the busiest primary's core full, operations a second. */
  readonly ceilingPerSecond: number;
  /** Commands Redis ran (scripts' own calls counted), every primary together. */
  readonly commands: number;
  /** The store instances' CPU (this process), µs. */
  readonly instanceMicros: number;
}

export async function measureSplit(options: SplitOptions) {
  const { log } = options;
  const cluster = await startRedisCluster();
  const probes = cluster.nodes.map(({ port }) => new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 1 }));
  try {
    const roles = await Promise.all(probes.map(async (probe) => /role:master/.test(await probe.info('replication'))));
    const primaries = probes.filter((_, index) => roles[index]);
    const target: RedisTarget = { kind: 'cluster', nodes: cluster.nodes.map(({ port }) => ({ host: '127.0.0.1', port })), tls: false };
    const rooms: Record<string, Record<string, Phase>> = {};
    for (const parts of [1, options.parts]) {
      const name = parts === 1 ? 'whole' : `split${parts}`;
      log(`split: ${options.arrivals} arrivals, polls and releases in a room ${parts === 1 ? 'whole' : `split in ${parts} parts`}…`);
      const prefix = roomPrefix({ name, primary: true }, true);
      const instances: QueueStore[] = Array.from({ length: INSTANCES }, () =>
        parts === 1 ? new RedisStore(target, { prefix }) : new PartedLine(target, parts, { prefix }),
      );
      try {
        rooms[name] = await phases(instances, primaries, options.arrivals);
      } finally {
        await Promise.all(instances.map((store) => store.close()));
      }
    }
    return { parts: options.parts, primaries: primaries.length, instances: INSTANCES, rooms };
  } finally {
    for (const probe of probes) probe.disconnect();
    await cluster.close();
  }
}

/** Arrivals, then polls of every place, then releases until the line is empty, each measured apart. */
async function phases(instances: readonly QueueStore[], primaries: readonly Redis[], arrivals: number): Promise<Record<string, Phase>> {
  const now = Date.now();
  const uuids: string[] = [];
  // A copy of the line starts at an instance's first poll: every instance follows the line from the start, as a gateway polled all along does.
  await Promise.all(instances.map((store) => store.position(randomUUID(), now)));
  const arrive = await measured(primaries, arrivals, () =>
    spread(arrivals, async (index) => {
      const arrival = await instances[index % instances.length].arrive(randomUUID(), 0, get, now, limits);
      if (!arrival.admitted) uuids.push(arrival.place.entry.uuid);
    }),
  );
  // The copies hold every arrival: a poll is then what it is for most of a wait.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const poll = await measured(primaries, uuids.length, () =>
    spread(uuids.length, async (index) => {
      await instances[index % instances.length].position(uuids[index], now);
    }),
  );
  const steps = Math.ceil(uuids.length / RELEASE_STEP);
  let released = 0;
  const release = await measured(primaries, uuids.length, () =>
    spread(
      steps,
      async (index) => {
        const step = await instances[index % instances.length].release(RELEASE_STEP, now, policy);
        released += step.released.length;
      },
      instances.length,
    ),
  );
  if (released !== uuids.length) throw new Error(`Released ${released} of ${uuids.length} places.`);
  return { arrive, poll, release };
}

/** `count` calls of `call` by index, `concurrency` at a time. */
async function spread(count: number, call: (index: number) => Promise<void>, concurrency = CONCURRENCY): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await call(next++);
    }),
  );
}

/** Every primary's CPU and commands, and this process's CPU, over `work`: `operations` of it. */
async function measured(primaries: readonly Redis[], operations: number, work: () => Promise<void>): Promise<Phase> {
  const read = () =>
    Promise.all(
      primaries.map(async (probe) => {
        const [cpu, stats] = [await probe.info('cpu'), await probe.info('commandstats')];
        const commands = [...stats.matchAll(/calls=(\d+)/g)].reduce((sum, [, calls]) => sum + Number(calls), 0);
        return { cpu: infoField(cpu, 'used_cpu_user') + infoField(cpu, 'used_cpu_sys'), commands };
      }),
    );
  const before = await read();
  const cpuBefore = process.cpuUsage();
  await work();
  const instanceSeconds = cpuSeconds(cpuBefore, process.cpuUsage());
  const after = await read();
  const cpu = after.map((one, index) => one.cpu - before[index].cpu);
  const total = cpu.reduce((sum, one) => sum + one, 0);
  const busiest = Math.max(...cpu);
  return {
    operations,
    redisMicros: round((total * 1e6) / operations),
    busiestShare: round(busiest / total),
    ceilingPerSecond: Math.round(operations / busiest),
    // The probes' own INFO calls (two each) are not the room's.
    commands: round(
      (after.reduce((sum, one) => sum + one.commands, 0) - before.reduce((sum, one) => sum + one.commands, 0) - 2 * primaries.length) / operations,
    ),
    instanceMicros: round((instanceSeconds * 1e6) / operations),
  };
}
