/**
 * What one held arrival costs, on Redis (docs/performance.md, "A held arrival"), each figure ÷ the
 * arrivals; written to bench/results/arrivals.json, which docs/capacity.md is computed from.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import Redis from 'ioredis';
import { RedisStore } from '../server/store/redis/redis-store';
import { HELD_HEADER } from '@waiting-room/streams/contract';
import { commandCalls, commandMicros, cpuSeconds, distribution, infoField } from './stats';
import { request } from './capacity/http-client';
import { SERVER_EXEC_ARGV, serverWithoutOrigin } from './capacity/rig';

export const ARRIVALS_FILE = 'arrivals.json';

/** Copies of the line following its log, as every gateway process's does: each one's cost is the log's fan-out. */
const COPIES = 32;
/** Stores sending one arrival a call each, as many gateway processes do, into a room of their own: enough to keep Redis busy. */
const BUSY = { stores: 32, prefix: 'wr:busy:', request: { method: 'GET', uri: '/checkout' }, limits: { activeLimit: 1, sessionMs: 3_600_000 } };
/** Releases a minute while the line empties (the most a room takes). */
const RELEASE_PER_MINUTE = 60_000;

type ArrivalsOptions = { arrivals: number; warmup: number; concurrency: number; redisUrl: string; pageDir: string; log: (line: string) => void };

export async function measureArrivals(options: ArrivalsOptions) {
  const probe = new Redis(options.redisUrl, { maxRetriesPerRequest: 1 });
  const total = options.arrivals + options.warmup + 1;
  const settings = { activeLimit: 1, releasePerMinute: RELEASE_PER_MINUTE, sessionSeconds: 3600, pageDir: options.pageDir, redisUrl: options.redisUrl };
  // BENCH_CPU_PROF=<dir>: the server's own `--cpu-prof`, to see where an arrival's time goes.
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const { server, admin } = await serverWithoutOrigin('bench server (Redis store)', settings, [...SERVER_EXEC_ARGV, ...profile]);
  try {
    await admin('POST', '/admin/pause');
    const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
    const base = new URL(server.ready.url);
    let next = 0;
    const ms: number[] = [];
    const pageBytes: number[] = [];
    const arrive = async (count: number) => {
      const errors: Record<string, number> = {};
      const end = next + count;
      await Promise.all(
        Array.from({ length: options.concurrency }, async () => {
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
    /** `options.arrivals` arrivals sent by `send`, and what each cost the gateway and Redis. */
    const counted = async (send: (count: number) => Promise<Record<string, number> | void>) => {
      const [before, started] = [await sample(), performance.now()];
      const errors = (await send(options.arrivals)) ?? {};
      const [seconds, after] = [(performance.now() - started) / 1000, await sample()];
      const per = (value: number) => value / options.arrivals;
      return {
        errors,
        perSecond: options.arrivals / seconds,
        gatewayCpuMicros: per(cpuSeconds(before.cpu, after.cpu) * 1e6),
        redisCpuMicros: per((after.redisCpu - before.redisCpu) * 1e6),
        // Commands Redis ran (those a script calls included), and the scripts called: a round trip each at most.
        redisCommands: per(after.commands - before.commands),
        redisScripts: per(after.scripts - before.scripts),
        redisOutBytes: per(after.redisOutBytes - before.redisOutBytes),
        redisBytesPerPlace: per(after.redisMemory - before.redisMemory),
        logReadMicros: per(after.logReadMicros - before.logReadMicros),
        logReads: per(after.logReads - before.logReads),
      };
    };

    options.log(`  arrivals: ${options.warmup} to warm up, then ${options.arrivals} counted, ${options.concurrency} at a time…`);
    // The first arrival is let in (to an origin that is not there, 502): every other one must be held.
    await arrive(1);
    const warmupErrors = await arrive(options.warmup);
    if (Object.keys(warmupErrors).length > 0) options.log(`  arrivals not held in the warm-up: ${JSON.stringify(warmupErrors)}`);
    [ms.length, pageBytes.length] = [0, 0];
    const many = await counted(arrive);
    const [latencyMs, bytes] = [distribution(ms), pageBytes.reduce((sum, page) => sum + page, 0)];
    agent.destroy();

    // A large room's gateway processes take a few arrivals a second each, each its own script call,
    // and Redis, hearing from all of them, is busy: one arrival a call from each of many stores, in
    // a room of their own, then as many with copies of that line following its log.
    options.log(`  arrivals: ${options.arrivals} one a call from ${BUSY.stores} stores, then as many with ${COPIES} copies of the line following its log…`);
    const stores = Array.from({ length: BUSY.stores }, () => new RedisStore(options.redisUrl, { prefix: BUSY.prefix }));
    let sent = 0;
    const oneACallEach = async (count: number) => {
      const end = sent + count;
      await Promise.all(
        stores.map(async (store) => {
          while (sent < end) await store.arrive(`s${sent}`, 0, BUSY.request, Date.now(), BUSY.limits, { address: `ip:${sent++}`, placesPerAddress: 3 });
        }),
      );
    };
    await oneACallEach(options.warmup);
    const oneACall = await counted(oneACallEach);
    const copies = Array.from({ length: COPIES }, () => new RedisStore(options.redisUrl, { prefix: BUSY.prefix }));
    const [someone] = await probe.zrange(`${BUSY.prefix}waiting`, '0', '0');
    // A poll starts each copy, which answers the polls once it has loaded the line.
    for (const copy of copies) while (!copy.answersFromCopy) await Promise.all([copy.position(someone, Date.now()), sleep(50)]);
    const copied = await counted(oneACallEach);
    await Promise.all([...copies, ...stores].map((store) => store.close()));

    options.log('  releases: the line released at its full rate…');
    const beforeReleases = await sample();
    const releaseStarted = performance.now();
    await admin('POST', '/admin/limits', { activeLimit: total });
    await admin('POST', '/admin/resume');
    let waiting = total - 1;
    while (waiting > 0 && performance.now() - releaseStarted < 120_000) {
      await sleep(250);
      waiting = ((await admin('GET', '/admin/stats')) as { waiting: number }).waiting;
    }
    const afterReleases = await sample();
    const released = total - 1 - waiting;
    return {
      arrivals: options.arrivals,
      concurrency: options.concurrency,
      ...many,
      latencyMs,
      pageBytes: Math.round(bytes / options.arrivals),
      oneACall: { ...oneACall, stores: BUSY.stores, gatewayCpuMicros: undefined },
      // What each copy following the log added to an arrival one a call: Redis's CPU with and without
      // them (too high: the copies slow this process's stores), and their reads as Redis times them.
      copies: {
        copies: COPIES,
        redisCpuMicros: (copied.redisCpuMicros - oneACall.redisCpuMicros) / COPIES,
        logReadMicros: copied.logReadMicros / COPIES,
        logReads: copied.logReads / COPIES,
        redisOutBytes: (copied.redisOutBytes - oneACall.redisOutBytes) / COPIES,
      },
      releases: {
        released,
        gatewayCpuMicros: (cpuSeconds(beforeReleases.cpu, afterReleases.cpu) * 1e6) / released,
        redisCpuMicros: ((afterReleases.redisCpu - beforeReleases.redisCpu) * 1e6) / released,
      },
    };
  } finally {
    probe.disconnect();
    await server.stop();
  }
}

export type ArrivalsResult = Awaited<ReturnType<typeof measureArrivals>>;
