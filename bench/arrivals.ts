/**
 * What one held arrival costs, on Redis (docs/performance.md, "A held arrival"), each figure ÷ the
 * arrivals; written to bench/results/arrivals.json, which docs/capacity.md is computed from.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import Redis from 'ioredis';
import { DEFAULT_PREFIX } from '../server/redis/connection';
import { RedisStore } from '../server/store/redis/redis-store';
import { HELD_HEADER } from '@waiting-room/streams/contract';
import { commandCalls, commandMicros, cpuSeconds, distribution, infoField } from './stats';
import { request } from './capacity/http-client';
import { SERVER_EXEC_ARGV, serverWithoutOrigin } from './capacity/rig';

export const ARRIVALS_FILE = 'arrivals.json';

/**
 * Copies of the line that follow its log while more arrivals come, as every gateway process's
 * copy does: what each costs Redis an arrival is the log's fan-out, which grows with the gateways.
 */
const COPIES = 32;

/** Releases a minute while the line empties (the most a room takes). */
const RELEASE_PER_MINUTE = 60_000;

type ArrivalsOptions = { arrivals: number; warmup: number; concurrency: number; redisUrl: string; pageDir: string; log: (line: string) => void };

/** Arrivals counted one at a time and with copies following the log: as many as the main count, capped. */
const SIDE_ARRIVALS = 10_000;

export async function measureArrivals(options: ArrivalsOptions) {
  const probe = new Redis(options.redisUrl, { maxRetriesPerRequest: 1 });
  const side = Math.min(SIDE_ARRIVALS, options.arrivals);
  // Counted many at a time, one at a time, then both again with copies following the log.
  const total = options.arrivals + 3 * side + options.warmup + 1;
  const settings = { activeLimit: 1, releasePerMinute: RELEASE_PER_MINUTE, sessionSeconds: 3600, pageDir: options.pageDir, redisUrl: options.redisUrl };
  // BENCH_CPU_PROF=<dir>: the server's own `--cpu-prof`, to see where an arrival's time goes.
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const { server, admin } = await serverWithoutOrigin('bench server (Redis store)', settings, [...SERVER_EXEC_ARGV, ...profile]);
  try {
    await admin('POST', '/admin/pause');
    const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
    const base = new URL(server.ready.url);
    let next = 0;
    const arrive = async (count: number, ms: number[], pageBytes: number[], concurrency = options.concurrency) => {
      const errors: Record<string, number> = {};
      const end = next + count;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < end) {
            const index = next++;
            const answer = await request(agent, base, 'GET', `/checkout?item=${index}`, { accept: 'text/html', 'accept-language': 'en' });
            // Held: the waiting page with a new session; the first arrival takes the one active slot.
            const problem = `${answer.status} ${answer.body.slice(0, 120)}`;
            if (answer.status !== 200 || answer.headers[HELD_HEADER.name] !== HELD_HEADER.value || !answer.headers['set-cookie'])
              errors[problem] = (errors[problem] ?? 0) + 1;
            ms.push(answer.ms);
            pageBytes.push(Buffer.byteLength(answer.body));
          }
        }),
      );
      return errors;
    };
    const sample = async () => {
      const info = await probe.info('everything');
      const field = (name: string) => infoField(info, name);
      const calls = (command: string) => commandCalls(info, command);
      return {
        cpu: await server.request<NodeJS.CpuUsage>('cpu'),
        redisCpu: field('used_cpu_user') + field('used_cpu_sys'),
        commands: field('total_commands_processed'),
        scripts: calls('evalsha') + calls('eval') + calls('fcall'),
        redisMemory: field('used_memory'),
        redisOutBytes: field('total_net_output_bytes'),
        logReadMicros: commandMicros(info, 'xread'),
        logReads: calls('xread'),
      };
    };
    const cpuMicros = (from: NodeJS.CpuUsage, to: NodeJS.CpuUsage) => cpuSeconds(from, to) * 1e6;
    /** `count` arrivals, `concurrency` at a time, and what each cost the gateway and Redis. */
    const counted = async (count: number, concurrency: number, ms: number[] = [], pageBytes: number[] = []) => {
      const before = await sample();
      const started = performance.now();
      const errors = await arrive(count, ms, pageBytes, concurrency);
      const seconds = (performance.now() - started) / 1000;
      const after = await sample();
      const per = (value: number) => value / count;
      return {
        errors,
        perSecond: count / seconds,
        gatewayCpuMicros: per(cpuMicros(before.cpu, after.cpu)),
        redisCpuMicros: per((after.redisCpu - before.redisCpu) * 1e6),
        // Commands Redis ran (those a script calls included), and the scripts called: a round trip each at most.
        redisCommands: per(after.commands - before.commands),
        redisScripts: per(after.scripts - before.scripts),
        redisOutBytes: per(after.redisOutBytes - before.redisOutBytes),
        logReadMicros: per(after.logReadMicros - before.logReadMicros),
        logReads: per(after.logReads - before.logReads),
        redisBytesPerPlace: per(after.redisMemory - before.redisMemory),
      };
    };

    /** What each copy added to an arrival, from the same count without and with the copies. */
    const perCopy = (alone: Counted, copied: Counted) => ({
      redisCpuMicros: (copied.redisCpuMicros - alone.redisCpuMicros) / COPIES,
      // The copies' reads of the log alone, as Redis times the command: steadier than the difference above.
      logReadMicros: copied.logReadMicros / COPIES,
      logReads: copied.logReads / COPIES,
      redisOutBytes: (copied.redisOutBytes - alone.redisOutBytes) / COPIES,
    });
    type Counted = Awaited<ReturnType<typeof counted>>;

    options.log(`  arrivals: ${options.warmup} to warm up, then ${options.arrivals} counted, ${options.concurrency} at a time…`);
    // The first arrival is let in (to an origin that is not there, 502): every other one must be held.
    await arrive(1, [], []);
    const warmupErrors = await arrive(options.warmup, [], []);
    if (Object.keys(warmupErrors).length > 0) options.log(`  arrivals not held in the warm-up: ${JSON.stringify(warmupErrors)}`);
    const memoryBefore = await server.request<NodeJS.MemoryUsage>('memory');
    const ms: number[] = [];
    const pageBytes: number[] = [];
    const many = await counted(options.arrivals, options.concurrency, ms, pageBytes);
    const memoryAfter = await server.request<NodeJS.MemoryUsage>('memory');

    // A gateway process of a large room takes a few arrivals a second: each its own script call.
    options.log(`  arrivals: ${side} more, one at a time…`);
    const single = await counted(side, 1);
    // The same count many at a time, to compare with the copies' run.
    const manyAgain = await counted(side, options.concurrency);
    options.log(`  copies: ${COPIES} copies of the line following its log, then ${side} more arrivals many at a time, and ${side} one at a time…`);
    const copies = Array.from({ length: COPIES }, () => new RedisStore(options.redisUrl, { prefix: DEFAULT_PREFIX }));
    const [someone] = await probe.zrange(`${DEFAULT_PREFIX}waiting`, '0', '0');
    // A poll starts each copy, which answers the polls once it has loaded the line.
    for (const copy of copies) while (!copy.answersFromCopy) await Promise.all([copy.position(someone, Date.now()), sleep(50)]);
    const manyCopied = await counted(side, options.concurrency);
    const singleCopied = await counted(side, 1);
    await Promise.all(copies.map((copy) => copy.close()));
    agent.destroy();

    options.log('  releases: the line released at its full rate…');
    const beforeReleases = await sample();
    const releaseStarted = performance.now();
    await admin('POST', '/admin/limits', { activeLimit: total });
    await admin('POST', '/admin/resume');
    let waiting = total - 1;
    while (waiting > 0 && performance.now() - releaseStarted < 120_000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      waiting = ((await admin('GET', '/admin/stats')) as { waiting: number }).waiting;
    }
    const afterReleases = await sample();
    const released = total - 1 - waiting;
    const { redisOutBytes: _, ...figures } = many;
    return {
      arrivals: options.arrivals,
      concurrency: options.concurrency,
      ...figures,
      latencyMs: distribution(ms),
      gatewayHeapBytesPerPlace: (memoryAfter.heapUsed - memoryBefore.heapUsed) / options.arrivals,
      pageBytes: Math.round(pageBytes.reduce((sum, bytes) => sum + bytes, 0) / options.arrivals),
      oneAtATime: { arrivals: side, ...single },
      // What each copy following the log adds to an arrival: the log's fan-out.
      copies: {
        copies: COPIES,
        errors: { ...manyCopied.errors, ...singleCopied.errors },
        ...perCopy(manyAgain, manyCopied),
        oneAtATime: perCopy(single, singleCopied),
      },
      releases: {
        released,
        gatewayCpuMicros: cpuMicros(beforeReleases.cpu, afterReleases.cpu) / released,
        redisCpuMicros: ((afterReleases.redisCpu - beforeReleases.redisCpu) * 1e6) / released,
      },
    };
  } finally {
    probe.disconnect();
    await server.stop();
  }
}

export type ArrivalsResult = Awaited<ReturnType<typeof measureArrivals>>;
