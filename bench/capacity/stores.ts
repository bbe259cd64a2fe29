/**
 * The Redis store beside the memory store in the same run: two of our servers side by side, one
 * on each store (Redis's own redis-server), each holding the same number of waiting visitors, and
 * one closed-loop poller sending queue_info to each in alternating slices, so that whatever the
 * machine does meanwhile weighs on both alike and Redis ÷ memory is read from the same slices.
 *
 * queue_info needs a place in line and nothing else: the visitors are only held (a GET of the
 * protected page with their own cookie, which the poller sends back), with no WebSocket, and both
 * lines stay paused, so that nobody leaves them while they are polled.
 */
import { median } from '../stats';
import type { CapacityOptions } from './run-capacity';
import type { SaturateResult } from './poller';
import { alternating, Rig } from './rig';

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

/**
 * Rounds of fresh processes: two server processes differ by more than the stores do (the code V8
 * optimised for each, where the kernel placed it), for the process's life, so the runs are spread
 * over several pairs.
 */
const ROUNDS = 3;
const round = (value: number) => Math.round(value * 100) / 100;

type Measured = SaturateResult & {
  /** Our server's CPU time per answered queue_info (µs), and the poller's. */
  serverCpuMicrosPerRequest: number;
  generatorCpuMicrosPerRequest: number;
  /** redis-server's CPU time per answer (µs), and its share of a core over the run. */
  storeCpuMicrosPerRequest?: number;
  storeCpu?: number;
  pollsPerScriptCall?: number;
};
type StoreRun = { round: number; order: string[]; memory: Measured; redis: Measured; ratio: number };

/** Redis ÷ memory per run and their median, and each store's CPU a request: `repetitions` runs over `ROUNDS` rounds. */
export async function compareStores(options: StoreComparisonOptions) {
  const rounds = Math.min(ROUNDS, options.repetitions);
  const runs: StoreRun[] = [];
  let holdErrors = 0;
  const held = { memory: 0, redis: 0 };
  for (let inRound = 1; inRound <= rounds; inRound++) {
    if (inRound > 1) await options.flushStore();
    const rig = new Rig();
    try {
      const { servers: memoryServer } = await rig.servers(1, { ...options, redisUrl: undefined });
      const { servers: redisServer } = await rig.servers(1, options);
      const servers = { memory: memoryServer[0], redis: redisServer[0] };
      // Each visitors' process holds its share on both servers, in turn.
      const visitors = await rig.visitors(Math.max(2, options.visitorProcesses), [servers.memory, servers.redis]);
      options.log(`  holding ${options.visitors} visitors on each store (held only: a GET with their cookie, no WebSocket)…`);
      const hold = await visitors.hold(2 * options.visitors, { realtime: false });
      holdErrors += hold.errorCount;
      const waiting = await visitors.waiting();
      held.memory = waiting.filter((visitor) => visitor.target === servers.memory.ready.url).length;
      held.redis = waiting.length - held.memory;
      const [poller] = await rig.pollers(1);
      await poller.request('visitors', waiting);
      for (let run = 0; run < Math.ceil(options.repetitions / rounds); run++) {
        const storeCpuBefore = await options.storeCpu?.();
        const callsBefore = await options.storeScriptCalls?.();
        const { order, busySeconds, byName } = await alternating(poller, servers, runs.length, options.connections, options.saturateSeconds);
        const storeSeconds = storeCpuBefore === undefined ? undefined : (await options.storeCpu!()) - storeCpuBefore;
        const calls = callsBefore === undefined ? undefined : (await options.storeScriptCalls!()) - callsBefore;
        // The servers' and redis-server's CPU time spans the warm-up slices too: per answer of the whole run.
        const measured = (store: 'memory' | 'redis'): Measured => {
          const { serverCpuSeconds, ...figures } = byName[store];
          const perAnswer = (seconds: number) => (seconds * 1e6) / (figures.answered + figures.warmupAnswered);
          return {
            ...figures,
            serverCpuMicrosPerRequest: perAnswer(serverCpuSeconds),
            generatorCpuMicrosPerRequest: (figures.generatorCpu * figures.seconds * 1e6) / figures.answered,
            ...(store === 'redis' && storeSeconds !== undefined && { storeCpuMicrosPerRequest: perAnswer(storeSeconds), storeCpu: storeSeconds / busySeconds }),
            // With each instance's copy of the line, the calls are mostly the marks of seen.
            ...(store === 'redis' && calls !== undefined && { pollsPerScriptCall: (figures.answered + figures.warmupAnswered) / calls }),
          };
        };
        const [memory, redis] = [measured('memory'), measured('redis')];
        runs.push({ round: inRound, order, memory, redis, ratio: redis.perSecond / memory.perSecond });
        options.log(
          `  stores round ${inRound} run ${run + 1}: memory ${memory.perSecond.toFixed(0)}/s, Redis ${redis.perSecond.toFixed(0)}/s, Redis ÷ memory ${runs.at(-1)!.ratio.toFixed(2)}; ` +
            `server CPU a request ${memory.serverCpuMicrosPerRequest.toFixed(1)} µs / ${redis.serverCpuMicrosPerRequest.toFixed(1)} µs, redis-server ${redis.storeCpuMicrosPerRequest?.toFixed(1)} µs`,
        );
      }
    } finally {
      await rig.close();
    }
  }
  const of = (pick: (run: (typeof runs)[number]) => number | undefined) =>
    round(median(runs.map(pick).filter((value): value is number => value !== undefined)));
  const perStore = (store: 'memory' | 'redis') => ({
    perSecond: of((run) => run[store].perSecond),
    p50Ms: of((run) => run[store].latencyMs.p50),
    p99Ms: of((run) => run[store].latencyMs.p99),
    serverCpuMicrosPerRequest: of((run) => run[store].serverCpuMicrosPerRequest),
    generatorCpuMicrosPerRequest: of((run) => run[store].generatorCpuMicrosPerRequest),
  });
  return {
    settings: {
      visitors: options.visitors,
      repetitions: options.repetitions,
      saturateSeconds: options.saturateSeconds,
      rounds,
      connections: options.connections,
    },
    held,
    runs,
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
    errors: holdErrors + runs.reduce((sum, run) => sum + run.memory.errorCount + run.redis.errorCount, 0),
  };
}

export type StoreComparisonResult = Awaited<ReturnType<typeof compareStores>>;
