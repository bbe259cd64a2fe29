/**
 * The Redis store beside the memory store (bench/README.md): two of our servers, one closed-loop
 * poller on both in alternating slices, so that whatever the machine does weighs on both alike.
 * queue_info needs only a place in line: the visitors are only held, and both lines stay paused.
 */
import { median, round } from '../stats';
import type { SaturateResult } from './poller';
import { closedLoop, Rig } from './rig';
import type { CapacityOptions } from './run-capacity';

type StoreComparisonOptions = CapacityOptions & {
  readonly redisUrl: string;
  /** Empties the Redis the Redis store uses, between rounds. */
  readonly flushStore: () => Promise<void>;
  /** CPU seconds redis-server has used so far (`INFO cpu`). */
  readonly storeCpu: () => Promise<number>;
};

/** Rounds of fresh processes: two server processes differ for life by more than the stores do (V8's code, the kernel's placing). */
const ROUNDS = 3;

/** CPU time per answered queue_info (µs): the server's, the poller's, and redis-server's on the Redis store. */
type Measured = SaturateResult & { serverCpuMicrosPerRequest: number; generatorCpuMicrosPerRequest: number; storeCpuMicrosPerRequest?: number };

/** Redis ÷ memory per run and their median, and each store's CPU a request: `repetitions` runs over `ROUNDS` rounds. */
export async function compareStores(options: StoreComparisonOptions) {
  const rounds = Math.min(ROUNDS, options.repetitions);
  const runs: { round: number; order: string[]; memory: Measured; redis: Measured; ratio: number }[] = [];
  let holdErrors = 0;
  for (let inRound = 1; inRound <= rounds; inRound++) {
    if (inRound > 1) await options.flushStore();
    const rig = new Rig();
    try {
      const memory = (await rig.servers(1, { ...options, redisUrl: undefined })).servers[0];
      const redis = (await rig.servers(1, options)).servers[0];
      // Each visitors' process holds its share on both servers, in turn.
      const visitors = await rig.visitors(Math.max(2, options.visitorProcesses), [memory, redis]);
      options.log(`  holding ${options.visitors} visitors on each store (held only: a GET with their cookie, no WebSocket)…`);
      holdErrors += (await visitors.hold(2 * options.visitors, { realtime: false })).errorCount;
      const [poller] = await rig.pollers(1);
      await poller.request('visitors', await visitors.waiting());
      const perRound = Array.from({ length: Math.ceil(options.repetitions / rounds) }, (_, index) => runs.length + index);
      for (const run of await closedLoop(poller, { memory, redis }, perRound, { ...options, seconds: options.saturateSeconds })) {
        // The servers' and redis-server's CPU time spans the warm-up slices too: per answer of the whole run.
        const measured = (store: 'memory' | 'redis'): Measured => {
          const { serverCpuSeconds, ...figures } = run.byName[store];
          const all = figures.answered + figures.warmupAnswered;
          return {
            ...figures,
            serverCpuMicrosPerRequest: (serverCpuSeconds * 1e6) / all,
            generatorCpuMicrosPerRequest: (figures.generatorCpu * figures.seconds * 1e6) / figures.answered,
            ...(store === 'redis' && { storeCpuMicrosPerRequest: (run.storeCpuSeconds! * 1e6) / all }),
          };
        };
        const figures = { round: inRound, order: run.order, memory: measured('memory'), redis: measured('redis') };
        runs.push({ ...figures, ratio: figures.redis.perSecond / figures.memory.perSecond });
        options.log(`  stores round ${inRound}: Redis ÷ memory ${runs.at(-1)!.ratio.toFixed(2)}`);
      }
    } finally {
      await rig.close();
    }
  }
  const of = (pick: (run: (typeof runs)[number]) => number | undefined) =>
    round(median(runs.map(pick).filter((value): value is number => value !== undefined)));
  const perStore = (store: 'memory' | 'redis') => ({
    perSecond: of((run) => run[store].perSecond),
    serverCpuMicrosPerRequest: of((run) => run[store].serverCpuMicrosPerRequest),
    generatorCpuMicrosPerRequest: of((run) => run[store].generatorCpuMicrosPerRequest),
  });
  const { visitors, repetitions, saturateSeconds, connections } = options;
  return {
    settings: { visitors, repetitions, saturateSeconds, rounds, connections },
    runs,
    median: {
      /** Redis ÷ memory, each run's from its own slices. */
      ratio: of((run) => run.ratio),
      memory: perStore('memory'),
      redis: { ...perStore('redis'), storeCpuMicrosPerRequest: of((run) => run.redis.storeCpuMicrosPerRequest) },
    },
    errors: holdErrors + runs.reduce((sum, run) => sum + run.memory.errorCount + run.redis.errorCount, 0),
  };
}
