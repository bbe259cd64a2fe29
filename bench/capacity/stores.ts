/**
 * The Redis store beside the memory store in the same run: two of our servers started side by side
 * (`server.ts`, one on each store, the Redis one on a redis-server of its own), each holding the same
 * number of waiting visitors, and one closed-loop poller (`poller.ts`) sending queue_info to each
 * in alternating slices (memory, Redis, Redis, memory, …), so that whatever the machine does meanwhile
 * weighs on both alike and Redis ÷ memory is read directly from the slices.
 *
 * queue_info needs a place in line and nothing else: the visitors are only held (a GET of the
 * protected page with their own cookie, which the poller sends back), with no WebSocket, and both
 * lines stay paused, so that nobody leaves them while they are polled.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { median } from '../stats';
import { Child } from './ipc';
import type { SaturateResult } from './poller';
import type { CpuSample, ServerReady } from './protocol';
import { adminClient, closeAll, cpuShare, SERVER_EXEC_ARGV, serverEnv, type CapacityOptions } from './run-capacity';
import { sourceAddress, VisitorGroup } from './visitor-group';

export type StoreComparisonOptions = Pick<
  CapacityOptions,
  | 'visitors'
  | 'visitorProcesses'
  | 'saturateSeconds'
  | 'repetitions'
  | 'connections'
  | 'activeLimit'
  | 'releasePerMinute'
  | 'sessionSeconds'
  | 'pageDir'
  | 'storeCpu'
  | 'log'
> & {
  readonly redisUrl: string;
  /** Empties the Redis the Redis store uses, between rounds. */
  readonly flushStore: () => Promise<void>;
  /** Script calls Redis has run so far (EVALSHA and EVAL, from `INFO commandstats`). */
  readonly storeScriptCalls?: () => Promise<number>;
};

type StoreName = 'memory' | 'redis';

const STORES: readonly StoreName[] = ['memory', 'redis'];
/** Uncounted closed loop on each server before a run's slices (new connections, warm code). */
const SLICE_WARMUP_SECONDS = 1;
/** Alternating slices per run, half on each store. */
const SLICES = 8;
/** The poller's source address; the visitors' processes take the ones after it. */
const POLLER_ADDRESS = 0;
/**
 * Rounds of fresh processes: two server processes differ by more than the stores do (the code V8
 * optimised for each, where the kernel placed it), and that difference stays for the process's
 * life, so the runs are spread over several pairs.
 */
const ROUNDS = 3;

const round = (value: number) => Math.round(value * 100) / 100;

/**
 * Runs the comparison and returns its figures: Redis ÷ memory per run and their median, and each
 * store's CPU a request. `repetitions` runs in all, spread over `ROUNDS` rounds, each with servers,
 * visitors and a poller of its own (and Redis emptied).
 */
export async function compareStores(options: StoreComparisonOptions) {
  const rounds = Math.min(ROUNDS, options.repetitions);
  const runsPerRound = Math.ceil(options.repetitions / rounds);
  const runs: (Run & { round: number })[] = [];
  let held: Awaited<ReturnType<typeof holdOnEach>> | undefined;
  let holdErrors = 0;
  for (let round = 1; round <= rounds; round++) {
    const children: Child<unknown>[] = [];
    try {
      if (round > 1) await options.flushStore();
      const servers = await startServers(options, children);
      held = await holdOnEach(options, servers, children);
      holdErrors += held.errors;
      const poller = await Child.start<{ pid: number }>(path.join(__dirname, 'poller.ts'), {
        name: 'poller',
        env: { ...process.env, BENCH_SOURCE_ADDRESS: sourceAddress(POLLER_ADDRESS) },
      });
      children.push(poller);
      await poller.request('visitors', held.visitors);
      for (let run = 0; run < runsPerRound; run++) {
        const figures = await throughputRun(options, servers, poller, runs.length);
        runs.push({ ...figures, round });
        options.log(
          `  stores round ${round} run ${run + 1}: memory ${figures.memory.perSecond.toFixed(0)}/s, Redis ${figures.redis.perSecond.toFixed(0)}/s, ` +
            `Redis ÷ memory ${figures.ratio.toFixed(2)}; server CPU a request ${figures.memory.serverCpuMicrosPerRequest.toFixed(1)} µs / ` +
            `${figures.redis.serverCpuMicrosPerRequest.toFixed(1)} µs, redis-server ${figures.redis.storeCpuMicrosPerRequest?.toFixed(1)} µs; ` +
            `GC ${JSON.stringify(figures.memory.gc.totalByKind)} / ${JSON.stringify(figures.redis.gc.totalByKind)} ms`,
        );
      }
    } finally {
      await closeAll(children);
    }
  }
  return storeFigures(options, { heldBy: held?.heldBy ?? { memory: 0, redis: 0 }, errors: holdErrors }, runs, rounds);
}

/** A server on each store, paused: nobody leaves the line while it is polled. */
async function startServers(options: StoreComparisonOptions, children: Child<unknown>[]): Promise<Record<StoreName, Child<ServerReady>>> {
  const adminToken = randomBytes(18).toString('base64url');
  const servers = {} as Record<StoreName, Child<ServerReady>>;
  for (const store of STORES) {
    servers[store] = await Child.start<ServerReady>(path.join(__dirname, 'server.ts'), {
      name: `bench server (${store} store)`,
      execArgv: SERVER_EXEC_ARGV,
      env: serverEnv({ ...options, redisUrl: store === 'redis' ? options.redisUrl : undefined }, adminToken),
    });
    children.push(servers[store]);
    await adminClient(servers[store].ready.url, adminToken)('POST', '/admin/pause');
  }
  return servers;
}

export type StoreComparisonResult = Awaited<ReturnType<typeof compareStores>>;

/** The same number of visitors held on each server, each by visitors' processes of its own (from addresses of their own). */
async function holdOnEach(options: StoreComparisonOptions, servers: Record<StoreName, Child<ServerReady>>, children: Child<unknown>[]) {
  const holdArg = { concurrency: 64, maxErrors: Math.max(10, Math.ceil(options.visitors / 100)), realtime: false };
  const processes = Math.max(1, Math.ceil(options.visitorProcesses / 2));
  options.log(`  holding ${options.visitors} visitors on each store (held only: a GET with their cookie, no WebSocket)…`);
  const holds = await Promise.all(
    STORES.map(async (store, index) => {
      const group = await VisitorGroup.start({
        processes,
        targets: [servers[store].ready.url],
        firstAddress: POLLER_ADDRESS + 1 + index * processes,
      });
      children.push(...group.children);
      const result = await group.hold(options.visitors, holdArg);
      return { store, result, visitors: await group.visitors() };
    }),
  );
  const errors = holds.reduce((sum, { result }) => sum + result.errorCount, 0);
  const heldBy = Object.fromEntries(holds.map(({ store, visitors }) => [store, visitors.length])) as Record<StoreName, number>;
  options.log(`  held ${heldBy.memory} (memory) and ${heldBy.redis} (Redis), ${errors} errors`);
  return { heldBy, errors, visitors: holds.flatMap(({ visitors }) => visitors) };
}

type Measured = SaturateResult & {
  /** Our server's CPU time per answered queue_info (µs). */
  serverCpuMicrosPerRequest: number;
  /** The poller's CPU time per answer (µs). */
  generatorCpuMicrosPerRequest: number;
  /** redis-server's CPU time per answer of the Redis store's server (µs). */
  storeCpuMicrosPerRequest?: number;
  /** redis-server's share of a core over the run. */
  storeCpu?: number;
  /** queue_info answers a script call to Redis (with the instance's copy of the line, the calls are mostly the marks of seen). */
  pollsPerScriptCall?: number;
  /** The server's garbage-collection pauses over the run, in all and by kind (ms). */
  gc: { totalMs: number; totalByKind: Record<string, number> };
};

/** One closed-loop run: the slices of both stores alternating (ABBA ABBA, then BAAB BAAB the next run). */
async function throughputRun(options: StoreComparisonOptions, servers: Record<StoreName, Child<ServerReady>>, poller: Child<unknown>, run: number) {
  const [first, second] = run % 2 === 0 ? STORES : [...STORES].reverse();
  const order = Array.from({ length: SLICES }, (_, index) => (index % 4 === 0 || index % 4 === 3 ? first : second));
  const sliceSeconds = (2 * options.saturateSeconds) / SLICES;
  const cpuBefore = { memory: await servers.memory.request<CpuSample>('cpu'), redis: await servers.redis.request<CpuSample>('cpu') };
  await Promise.all(STORES.map((store) => servers[store].request('gcPauses')));
  const storeCpuBefore = await options.storeCpu?.();
  const callsBefore = await options.storeScriptCalls?.();
  const result = await poller.request<Record<StoreName, SaturateResult>>('saturate', {
    urls: { memory: servers.memory.ready.url, redis: servers.redis.ready.url },
    order,
    connections: options.connections,
    sliceSeconds,
    warmupSeconds: SLICE_WARMUP_SECONDS,
  });
  const storeCpuAfter = await options.storeCpu?.();
  const callsAfter = await options.storeScriptCalls?.();
  // Each server is idle outside its own slices (its line paused): its CPU time over the run is that of its slices.
  const busySeconds = options.saturateSeconds + SLICE_WARMUP_SECONDS;
  const measured = async (store: StoreName): Promise<Measured> => {
    const figures = result[store];
    const serverSeconds = cpuShare(cpuBefore[store], await servers[store].request<CpuSample>('cpu'), 1);
    const { totalMs, totalByKind } = await servers[store].request<Measured['gc']>('gcPauses');
    // The servers' and redis-server's CPU time spans the warm-up slices too: per answer of the whole run.
    const perAnswer = (seconds: number) => (seconds * 1e6) / (figures.answered + figures.warmupAnswered);
    const storeSeconds = store === 'redis' && storeCpuBefore !== undefined && storeCpuAfter !== undefined ? storeCpuAfter - storeCpuBefore : undefined;
    return {
      ...figures,
      serverCpuMicrosPerRequest: perAnswer(serverSeconds),
      generatorCpuMicrosPerRequest: (figures.generatorCpu * figures.seconds * 1e6) / figures.answered,
      gc: { totalMs: Math.round(totalMs), totalByKind },
      ...(storeSeconds !== undefined && { storeCpuMicrosPerRequest: perAnswer(storeSeconds), storeCpu: storeSeconds / busySeconds }),
      ...(store === 'redis' &&
        callsBefore !== undefined &&
        callsAfter !== undefined && { pollsPerScriptCall: (figures.answered + figures.warmupAnswered) / (callsAfter - callsBefore) }),
    };
  };
  const memory = await measured('memory');
  const redis = await measured('redis');
  return { order, memory, redis, ratio: redis.perSecond / memory.perSecond };
}

type Run = Awaited<ReturnType<typeof throughputRun>>;

function storeFigures(
  options: StoreComparisonOptions,
  held: { heldBy: Record<StoreName, number>; errors: number },
  runs: readonly (Run & { round: number })[],
  rounds: number,
) {
  const of = (pick: (run: Run) => number | undefined) => round(median(runs.map(pick).filter((value): value is number => value !== undefined)));
  const perStore = (store: StoreName) => ({
    perSecond: of((run) => run[store].perSecond),
    p50Ms: of((run) => run[store].latencyMs.p50),
    p99Ms: of((run) => run[store].latencyMs.p99),
    serverCpuMicrosPerRequest: of((run) => run[store].serverCpuMicrosPerRequest),
    generatorCpuMicrosPerRequest: of((run) => run[store].generatorCpuMicrosPerRequest),
  });
  const errors = held.errors + runs.reduce((sum, run) => sum + run.memory.errorCount + run.redis.errorCount, 0);
  return {
    settings: {
      visitors: options.visitors,
      repetitions: options.repetitions,
      saturateSeconds: options.saturateSeconds,
      slices: SLICES,
      rounds,
      connections: options.connections,
    },
    held: held.heldBy,
    runs: runs.map(({ round: inRound, order, memory, redis, ratio }) => ({ round: inRound, order, memory, redis, ratio: round(ratio) })),
    median: {
      /** Redis ÷ memory, each run's from its own slices. */
      ratio: of((run) => run.ratio),
      memory: perStore('memory'),
      redis: {
        ...perStore('redis'),
        storeCpuMicrosPerRequest: of((run) => run.redis.storeCpuMicrosPerRequest),
        storeCpu: of((run) => run.redis.storeCpu),
        pollsPerScriptCall: of((run) => run.redis.pollsPerScriptCall),
      },
    },
    errors,
  };
}
