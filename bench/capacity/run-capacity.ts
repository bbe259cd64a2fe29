/** The server capacity benchmark, its processes and phases as bench/README.md lists them. */
import { median, round } from '../stats';
import type { FanoutFloor } from './bare-fanout';
import type { ServerReady } from './server';
import { closedLoop, openFileLimit, pacedWindow, Rig, summary, untilNoneActive, type PacedFigures, type ServerSettings } from './rig';

/**
 * The settings bench/README.md lists: `factor` compresses the page's polls (5 s and 60 s ÷ it);
 * `pollSockets`: the paced polling's keep-alive connections, `connections` the closed loop's (a
 * proxy's pool); `storeMemory`: what the store uses outside the server (Redis's used_memory).
 */
export type CapacityOptions = ServerSettings & PacedSettings & LoopSettings & { storeMemory?: () => Promise<number>; log: (line: string) => void };
type PacedSettings = { visitors: number; visitorProcesses: number; factor: number; pollSeconds: number; pacedRepetitions: number; pollSockets: number };
type LoopSettings = { saturateSeconds: number; repetitions: number; connections: number };

/** Paced polling first runs this long uncounted: code paths warm up and the polls spread out. */
const PACED_WARMUP_SECONDS = 3;

/** Runs the whole capacity benchmark and returns its figures. */
export async function runCapacity(options: CapacityOptions) {
  const { log } = options;
  checkOpenFiles(options.visitors + options.pollSockets + 264);
  const rig = new Rig();
  try {
    const floor = await fanoutFloor(rig, options);
    const bare = await rig.start<ServerReady>('bare-server.ts', 'bare server');
    const { servers, admin } = await rig.servers(1, options);
    const server = servers[0];
    const visitors = await rig.visitors(options.visitorProcesses, servers);
    const [poller] = await rig.pollers(1, visitors);

    // Memory after a full GC, at once and settled (once V8 has given back what it grew while the visitors arrived).
    const memory = (cmd: string) => server.request<NodeJS.MemoryUsage>(cmd);
    const sample = async () => ({ atOnce: await memory('memory'), settled: await memory('settledMemory') });
    const baseline = await sample();
    const storeBaseline = await options.storeMemory?.();
    log(`  holding ${options.visitors} visitors in ${options.visitorProcesses} processes…`);
    const hold = await visitors.hold(options.visitors);
    const full = await sample();
    const storeFull = await options.storeMemory?.();
    log(`  held ${hold.held}, ${hold.errorCount} errors ${JSON.stringify(hold.errors)}; server says ${JSON.stringify(await admin('GET', '/admin/stats'))}`);
    await untilNoneActive(admin, options.sessionSeconds);

    log(`  paced polling: ${options.pacedRepetitions} runs of ${options.pollSeconds} s at ×${options.factor}, releases at ${options.releasePerMinute}/min…`);
    const paced: PacedFigures[] = [];
    for (let run = 1; run <= options.pacedRepetitions; run++) {
      const arg = { seconds: options.pollSeconds, warmupSeconds: PACED_WARMUP_SECONDS, factor: options.factor, sockets: options.pollSockets };
      const figures = await pacedWindow({ servers, visitors, pollers: [poller], admin }, arg);
      paced.push(figures);
      log(`  paced run ${run}: ${summary(figures)}`);
    }

    // Released visitors are gone: the closed loop polls those still waiting.
    await poller.request('visitors', await visitors.waiting());
    const runs = Array.from({ length: options.repetitions }, (_, run) => run);
    const saturation = (await closedLoop(poller, { bare, ours: server }, runs, { connections: options.connections, seconds: options.saturateSeconds })).map(
      (run) => {
        // Server CPU time per answered request: what each answer costs, whatever else ran.
        const withCpu = ({ serverCpuSeconds, ...figures }: (typeof run.byName)[string]) => ({
          ...figures,
          serverCpu: serverCpuSeconds / run.busySeconds,
          serverCpuMicrosPerRequest: (serverCpuSeconds * 1e6) / figures.answered,
        });
        const { bare, ours } = run.byName;
        log(`  throughput run ${run.run + 1}: bare ${bare.perSecond.toFixed(0)}/s, ours ${ours.perSecond.toFixed(0)}/s`);
        return { order: run.order, bare: withCpu(bare), ours: withCpu(ours), ratio: ours.perSecond / bare.perSecond };
      },
    );
    const lives = await visitors.deliveries();

    const perVisitor = (from: NodeJS.MemoryUsage, to: NodeJS.MemoryUsage) => ({
      rss: (to.rss - from.rss) / hold.held,
      heapUsed: (to.heapUsed - from.heapUsed) / hold.held,
    });
    const total = (pick: (run: PacedFigures) => number) => paced.reduce((sum, run) => sum + pick(run), 0);
    const medianOf = (pick: (run: PacedFigures) => number) => round(median(paced.map(pick)));
    const maxOf = (pick: (run: PacedFigures) => number) => round(Math.max(...paced.map(pick)));
    const satMedian = (pick: (pair: (typeof saturation)[number]) => number) => median(saturation.map(pick));
    const errors = {
      hold: hold.errorCount,
      visitorLives: lives.errorCount,
      pacedPolls: total((run) => run.errors.polls),
      releasesNotDelivered: total((run) => run.errors.releasesNotDelivered),
      queueMovedMissed: total((run) => run.errors.queueMovedMissed),
      saturation: saturation.reduce((sum, pair) => sum + pair.bare.errorCount + pair.ours.errorCount, 0),
    };
    const { visitors: count, visitorProcesses, factor: timeFactor, releasePerMinute } = options;
    return {
      settings: { visitors: count, visitorProcesses, timeFactor, releasePerMinute, store: options.redisUrl ? 'redis' : 'memory' },
      hold: { held: hold.held, errors: hold.errors },
      memory: {
        /** Right after the arrivals, and settled (what the goal judges). */
        perVisitorBytes: perVisitor(baseline.atOnce, full.atOnce),
        settled: { baseline: baseline.settled, full: full.settled, perVisitorBytes: perVisitor(baseline.settled, full.settled) },
        /** In Redis (used_memory), for the Redis store: the line's share outside the server process. */
        storePerVisitorBytes: storeBaseline === undefined || storeFull === undefined ? undefined : (storeFull - storeBaseline) / hold.held,
      },
      paced: {
        median: {
          p50Ms: medianOf((run) => run.polls.latencyMs.p50),
          p99Ms: medianOf((run) => run.polls.latencyMs.p99),
          /** The longest the event loop was held, over every paced run: by the clock (waits for a core included), and by its own work (its main thread's CPU time in the hold). */
          serverLoopDelayMaxMs: maxOf((run) => run.servers[0].loopDelayMaxMs),
          serverOwnHoldMaxMs: maxOf((run) => run.servers[0].longestOwnHoldMs),
          serverHoldsOver20Ms: total((run) => run.servers[0].holds),
          serverGcPauseMaxMs: maxOf((run) => run.servers[0].gcPauseMaxMs),
        },
      },
      releases: { median: { p50Ms: medianOf((run) => run.releases.latencyMs.p50), p99Ms: medianOf((run) => run.releases.latencyMs.p99) } },
      /** QueueMoved on App.Queue: one frame per release batch to every waiting visitor's socket. */
      moves: {
        median: {
          framesPerBatchP50: median(paced.map((run) => run.moves.framesPerBatch.p50)),
          p50Ms: medianOf((run) => run.moves.latencyMs.p50),
          p99Ms: medianOf((run) => run.moves.latencyMs.p99),
        },
      },
      /** The same fan-outs on the server's own clock, beside the platform's floor (a bare Node `net` loop of socket writes). */
      fanout: {
        median: {
          lastWriteP99Ms: medianOf((run) => run.fanout.lastWriteMs.p99),
          microsPerSocketP50: medianOf((run) => run.fanout.microsPerSocket.p50),
          floor,
          queueInfoDuringP99Ms: medianOf((run) => run.fanout.queueInfoDuringMs.p99),
          moves: total((run) => run.fanout.moves),
          superseded: total((run) => run.fanout.superseded),
        },
      },
      saturation: {
        runs: saturation,
        median: {
          barePerSecond: satMedian((pair) => pair.bare.perSecond),
          oursPerSecond: satMedian((pair) => pair.ours.perSecond),
          ratio: satMedian((pair) => pair.ratio),
          oursCpuMicrosPerRequest: round(satMedian((pair) => pair.ours.serverCpuMicrosPerRequest)),
        },
      },
      errors: { ...errors, total: Object.values(errors).reduce((sum, count) => sum + count, 0) },
    };
  } finally {
    await rig.close();
  }
}

export type CapacityResult = Awaited<ReturnType<typeof runCapacity>>;

/** The platform's floor for writing one frame to each of N sockets (`bare-fanout.ts`), before the visitors arrive. */
async function fanoutFloor(rig: Rig, options: CapacityOptions): Promise<FanoutFloor> {
  const probe = await rig.start('bare-fanout.ts', 'bare fan-out');
  const floor = await probe.request<FanoutFloor>('measure', { sockets: options.visitors, rounds: 5 });
  options.log(
    `  the platform's floor: ${floor.microsPerSocketWall} µs a socket written (CPU ${floor.microsPerSocketCpu} µs), ${floor.sockets} loopback sockets`,
  );
  await probe.stop();
  return floor;
}

/** Refuses to start when a process would need more open files than its limit allows; raises nothing. */
function checkOpenFiles(needed: number): void {
  const limit = openFileLimit();
  if (limit !== undefined && needed > limit)
    throw new Error(
      `This run needs about ${needed} open files in one process, but the limit is ${limit} (ulimit -n). Lower BENCH_VISITORS or raise the limit yourself.`,
    );
}
