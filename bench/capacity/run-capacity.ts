/**
 * The server capacity benchmark: our server, a bare Node `http` server and the load generator,
 * each in its own process (the visitors in several). Holds N anonymous visitors at once, measures
 * the server's memory per waiting visitor, paced queue_info polling with releases under way
 * (release-to-delivery latency, and each release's `QueueMoved` fan-out to every waiting socket),
 * then queue_info throughput in a closed loop against ours and the bare server.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { distribution, median, preciseNow } from '../stats';
import { Child } from './ipc';
import { localPortRange, openFileLimit } from './limits';
import type { PollResult, SaturateResult } from './poller';
import type { CpuSample, MemorySample, ServerReady } from './protocol';
import type { FanoutFloor } from './bare-fanout';
import type { FanoutRecord } from './server';
import { sourceAddress, VisitorGroup, type Moves } from './visitor-group';
import type { Deliveries, MoveBatch } from './visitors';
import { NODE_FLAGS } from '../../server/process/node-flags';

export interface CapacityOptions {
  readonly visitors: number;
  /** Processes the visitors are spread over, each reading its share of the sockets. */
  readonly visitorProcesses: number;
  /** Time compression of the page's polls (5 s and 60 s divided by it). */
  readonly factor: number;
  readonly pollSeconds: number;
  /** Paced runs (each with its own releases), median reported. */
  readonly pacedRepetitions: number;
  readonly saturateSeconds: number;
  readonly repetitions: number;
  /** Keep-alive connections of the closed-loop phase (a proxy's pool in front of the server). */
  readonly connections: number;
  /** Keep-alive connections of the paced phase. */
  readonly pollSockets: number;
  readonly releasePerMinute: number;
  readonly activeLimit: number;
  readonly sessionSeconds: number;
  /** The built page (waiting.html and its assets). */
  readonly pageDir: string;
  readonly redisUrl?: string;
  /** Memory the store uses outside the server process (Redis's used_memory), in bytes. */
  readonly storeMemory?: () => Promise<number>;
  /** CPU seconds the store has used outside the server process (Redis's used_cpu_*), so far. */
  readonly storeCpu?: () => Promise<number>;
  readonly log: (line: string) => void;
}

const round = (value: number) => Math.round(value * 100) / 100;

type LoopDelay = { p50: number; p99: number; max: number };
/** Holds over 20 ms (`LoopHolds` in server.ts): how late its 5 ms timer fired, and the main thread's own CPU time in the longest. */
type LoopHolds = {
  count: number;
  longestMs: number;
  longestOwnMs: number;
  longestOwnGcMs: number;
  withGc: number;
  /** The first few, each with when it began (ms after the run's start). */
  first: { atMs: number; lateMs: number; ownMs: number; gcMs: number }[];
};
type GcPauses = { count: number; totalMs: number; maxMs: number; maxByKind: Record<string, number> };

const here = __dirname;

/** The bench server's Node flags: production's, and `gc()` to read memory after a full collection. */
export const SERVER_EXEC_ARGV = ['--expose-gc', ...NODE_FLAGS];
/** Paced polling first runs this long uncounted: code paths warm up and the polls spread out. */
const PACED_WARMUP_SECONDS = 3;
/** The closed loop first runs this long uncounted on each server (new connections, warm code). */
const SLICE_WARMUP_SECONDS = 1;
/** Alternating slices per closed-loop run, half on each server. */
const SLICES = 8;
/** The poller's source address (`sourceAddress`): the visitors' processes take the ones after it. */
const POLLER_ADDRESS = 0;

/** The processes of one capacity run, and what the phases share. */
interface Bench {
  readonly options: CapacityOptions;
  readonly bare: Child<ServerReady>;
  readonly server: Child<ServerReady>;
  readonly visitors: VisitorGroup;
  readonly poller: Child<{ pid: number }>;
  readonly admin: ReturnType<typeof adminClient>;
}

/** Runs the whole capacity benchmark and returns its figures. */
export async function runCapacity(options: CapacityOptions) {
  const limits = checkLimits(options);
  const children: Child<unknown>[] = [];
  try {
    const bench = await startProcesses(options, children);
    const floor = await fanoutFloor(options, children);
    const held = await holdVisitors(bench);
    // The sessions admitted before anyone waited must end first, or they take the release room.
    await untilNoneActive(bench.admin, options.sessionSeconds * 1000 + 5000);
    const pacedRuns = await pacedPhase(bench);
    const saturation = await throughputPhase(bench);
    const lives = await bench.visitors.deliveries();
    const memoryEnd = await bench.server.request<MemorySample>('memory');
    return capacityFigures(bench, limits, held, pacedRuns, saturation, lives, memoryEnd, floor);
  } finally {
    await closeAll(children);
  }
}

export type CapacityResult = Awaited<ReturnType<typeof runCapacity>>;

/** The bare server, ours (paused, so that nobody is released before being subscribed), the visitors and the poller. */
async function startProcesses(options: CapacityOptions, children: Child<unknown>[]): Promise<Bench> {
  const adminToken = randomBytes(18).toString('base64url');
  const bare = await Child.start<ServerReady>(path.join(here, 'bare-server.ts'), { name: 'bare server' });
  children.push(bare);
  const server = await Child.start<ServerReady>(path.join(here, 'server.ts'), {
    name: 'bench server',
    execArgv: SERVER_EXEC_ARGV,
    env: serverEnv(options, adminToken),
  });
  children.push(server);
  const admin = adminClient(server.ready.url, adminToken);
  await admin('POST', '/admin/pause');
  const visitors = await VisitorGroup.start({
    processes: options.visitorProcesses,
    targets: [server.ready.url],
    firstAddress: POLLER_ADDRESS + 1,
  });
  children.push(...visitors.children);
  const poller = await Child.start<{ pid: number }>(path.join(here, 'poller.ts'), {
    name: 'poller',
    env: { ...process.env, BENCH_TARGET: server.ready.url, BENCH_SOURCE_ADDRESS: sourceAddress(POLLER_ADDRESS) },
  });
  children.push(poller);
  // A released visitor's page goes away: its polling stops when its socket hears the release.
  visitors.on('released', (uuid) => void poller.request('released', uuid).catch(() => undefined));
  return { options, bare, server, visitors, poller, admin };
}

/** The platform's floor for writing one frame to each of N sockets (`bare-fanout.ts`), before the visitors arrive. */
async function fanoutFloor(options: CapacityOptions, children: Child<unknown>[]): Promise<FanoutFloor> {
  const probe = await Child.start<{ pid: number }>(path.join(here, 'bare-fanout.ts'), { name: 'bare fan-out' });
  children.push(probe);
  const floor = await probe.request<FanoutFloor>('measure', { sockets: options.visitors, rounds: 5 });
  options.log(
    `  the platform's floor: ${floor.microsPerSocketWall} µs a socket written (CPU ${floor.microsPerSocketCpu} µs), ${floor.sockets} loopback sockets`,
  );
  await probe.request('close').catch(() => undefined);
  await probe.stop();
  return floor;
}

/**
 * Holds N visitors, the server's memory after a full GC before and after: at once, and settled (`settledMemory`: once V8 has given back what it grew while the visitors
 * arrived), which is what a sample can be compared by.
 */
async function holdVisitors({ options, server, visitors, admin }: Bench) {
  const sample = async () => {
    const atOnce = await server.request<MemorySample>('memory');
    const settled = await server.request<MemorySample>('settledMemory');
    return { atOnce, settled };
  };
  const baseline = await sample();
  const storeBaseline = await options.storeMemory?.();
  const holdArg = { concurrency: 64, maxErrors: Math.max(10, Math.ceil(options.visitors / 100)) };
  options.log(`  holding ${options.visitors} visitors in ${options.visitorProcesses} processes…`);
  const holdFull = await visitors.hold(options.visitors, holdArg);
  const memoryFull = await sample();
  const storeFull = await options.storeMemory?.();
  const stats = await admin('GET', '/admin/stats');
  options.log(`  held ${holdFull.held} (${holdFull.seconds.toFixed(1)} s); server says ${JSON.stringify(stats)}`);
  return { holdFull, stats, baseline, storeBaseline, memoryFull, storeFull };
}

type Held = Awaited<ReturnType<typeof holdVisitors>>;

/** The paced runs: the page's polls while the release loop releases, one after the other. */
async function pacedPhase(bench: Bench) {
  const { options } = bench;
  options.log(
    `  paced polling: ${options.pacedRepetitions} runs of ${options.pollSeconds} s at ×${options.factor}, releases at ${options.releasePerMinute}/min…`,
  );
  const runs = [];
  for (let run = 0; run < options.pacedRepetitions; run++) {
    const figures = await pacedRun(bench);
    runs.push(figures);
    const { releases, moves, fanout } = figures;
    options.log(
      `  paced run ${run + 1}: queue_info ${figures.perSecond.toFixed(0)}/s (p50 ${figures.latencyMs.p50} ms, p99 ${figures.latencyMs.p99} ms; ` +
        `during fan-outs p99 ${fanout.queueInfoDuringMs.p99} ms); ` +
        `${releases.delivered}/${releases.released} releases delivered, p50 ${releases.latencyMs.p50} ms, p99 ${releases.latencyMs.p99} ms; ` +
        `QueueMoved to ${moves.framesPerBatch.p50} sockets: last written by the server p99 ${fanout.lastWriteMs.p99} ms, ` +
        `read p50 ${moves.latencyMs.p50} ms, p99 ${moves.latencyMs.p99} ms, ${moves.missedByWaiting} missed; ` +
        `server loop held at most ${figures.serverLoopDelayMs.max.toFixed(1)} ms (by its own work ${figures.serverHolds.longestOwnMs} ms), GC pause max ${figures.serverGc.maxMs.toFixed(1)} ms` +
        figures.serverHolds.first
          .map((hold) => `\n    held ${hold.ownMs} ms (${hold.lateMs} by the clock, GC ${hold.gcMs}) at ${(hold.atMs / 1000).toFixed(2)} s`)
          .join(''),
    );
  }
  return runs;
}

/** One paced run: polls at the page's pace while the release loop runs, then what each release and fan-out took. */
async function pacedRun(bench: Bench) {
  const { options, server, visitors, poller, admin } = bench;
  await poller.request('visitors', await visitors.visitors());
  const cpuBefore = await server.request<CpuSample>('cpu');
  // Forget what came before: each of these answers what happened since its last call.
  await server.request('loopDelay');
  await server.request('loopHolds');
  await server.request('gcPauses');
  await server.request('fanouts');
  await visitors.deliveries();
  await visitors.moves([], 0);
  const resumedAt = preciseNow();
  await admin('POST', '/admin/resume');
  const paced = await poller.request<PollResult>('poll', {
    seconds: options.pollSeconds,
    warmupSeconds: PACED_WARMUP_SECONDS,
    factor: options.factor,
    sockets: options.pollSockets,
  });
  await admin('POST', '/admin/pause');
  const pausedAt = preciseNow();
  const serverCpu = cpuShare(cpuBefore, await server.request<CpuSample>('cpu'), (pausedAt - resumedAt) / 1000);
  const serverLoopDelayMs = await server.request<LoopDelay>('loopDelay');
  const serverGc = await server.request<GcPauses>('gcPauses');
  const serverHolds = await server.request<LoopHolds>('loopHolds');
  const window = { from: resumedAt, countedFrom: paced.countedFrom, until: pausedAt };
  const releases = await releaseLatency(server, visitors, window);
  const { batches, moves } = await moveLatency(server, visitors, window);
  const fanout = fanoutFigures([await server.request<FanoutRecord[]>('fanouts')], batches, window.countedFrom, paced.timeline);
  const { timeline, ...polls } = paced;
  void timeline;
  return { ...polls, serverCpu, serverLoopDelayMs, serverHolds, serverGc, releases, moves, fanout };
}

type PacedRun = Awaited<ReturnType<typeof pacedRun>>;

/**
 * The servers' own account of each counted `QueueMoved` fan-out (`instances`: each server's
 * records), and the queue_info answers that a fan-out overlapped. A server may stop a move a newer
 * one made pointless: a batch has reached an instance's sockets when the first move carrying its
 * `served` or more that was not stopped has been written to all of them, and every socket when
 * that holds on every instance.
 */
export function fanoutFigures(
  instances: readonly (readonly FanoutRecord[])[],
  batches: readonly MoveBatch[],
  countedFrom: number,
  polls: readonly [number, number][],
) {
  const moves = instances.map((records) => records.filter((record) => record[0] === 'moved'));
  const lastWrite: number[] = [];
  for (const [served, decidedAt] of batches) {
    if (decidedAt < countedFrom) continue;
    const carrying = moves.map((records) => records.filter((record) => (record[1] as number) >= served));
    const done = carrying.map((records) => records.filter((record) => !record[7]).map((record) => record[4]));
    if (done.some((ends) => ends.length === 0)) continue;
    lastWrite.push(Math.max(...done.map((ends) => Math.min(...ends))) - decidedAt);
  }
  const counted = moves.flat().filter((record) => record[4] >= countedFrom);
  const whole = counted.filter((record) => !record[7] && record[5] > 0);
  const windows = counted.map((record): [number, number] => [record[2], record[4]]);
  const during = polls.filter(([sentAt, ms]) => windows.some(([from, until]) => sentAt <= until && sentAt + ms >= from)).map(([, ms]) => ms);
  return {
    /** Release decision → the servers' last socket written with a move carrying it, one value a batch. */
    lastWriteMs: distribution(lastWrite),
    /** Moves written to all their sockets, and those stopped by a newer one on the way. */
    moves: counted.length,
    superseded: counted.length - whole.length,
    /** The fan-out's own writing time per socket (its slices' share), to set beside the platform's floor (`bare-fanout.ts`). */
    microsPerSocket: distribution(whole.map((record) => (record[6] * 1000) / record[5])),
    /** queue_info answers that were under way while a fan-out was. */
    queueInfoDuringMs: distribution(during),
  };
}

/** Closed-loop throughput on ours and on the bare server, in alternating slices. */
async function throughputPhase(bench: Bench) {
  const { options, bare, server, visitors, poller } = bench;
  // Released visitors are gone: the closed loop polls those still waiting.
  await poller.request('visitors', await visitors.visitors());
  type Measured = SaturateResult & { serverCpu: number; serverCpuMicrosPerRequest: number; storeCpu?: number };
  const runs: { bare: Measured; ours: Measured; ratio: number }[] = [];
  for (let run = 0; run < options.repetitions; run++) {
    // ABBA ABBA…, and BAAB… the next time: a drift in the machine's load cancels out.
    const [first, second] = run % 2 === 0 ? ['bare', 'ours'] : ['ours', 'bare'];
    const order = Array.from({ length: SLICES }, (_, index) => (index % 4 === 0 || index % 4 === 3 ? first : second));
    const sliceSeconds = (2 * options.saturateSeconds) / SLICES;
    const before = { bare: await bare.request<CpuSample>('cpu'), ours: await server.request<CpuSample>('cpu') };
    const storeCpuBefore = await options.storeCpu?.();
    const result = await poller.request<Record<'bare' | 'ours', SaturateResult>>('saturate', {
      urls: { bare: bare.ready.url, ours: server.ready.url },
      order,
      connections: options.connections,
      sliceSeconds,
      warmupSeconds: SLICE_WARMUP_SECONDS,
    });
    // Each server is idle outside its own slices: its CPU time over the run is that of its slices.
    const busySeconds = options.saturateSeconds + SLICE_WARMUP_SECONDS;
    const storeCpuAfter = await options.storeCpu?.();
    const withCpu = (figures: SaturateResult, serverCpu: number) => ({
      ...figures,
      serverCpu,
      /** Server CPU time per answered request: what each answer costs, whatever else ran. */
      serverCpuMicrosPerRequest: (serverCpu * busySeconds * 1e6) / (figures.perSecond * figures.seconds),
    });
    const storeCpu = storeCpuBefore === undefined || storeCpuAfter === undefined ? undefined : (storeCpuAfter - storeCpuBefore) / busySeconds;
    const pair = {
      bare: withCpu(result.bare, cpuShare(before.bare, await bare.request<CpuSample>('cpu'), busySeconds)),
      ours: { ...withCpu(result.ours, cpuShare(before.ours, await server.request<CpuSample>('cpu'), busySeconds)), storeCpu },
    };
    const ratio = pair.ours.perSecond / pair.bare.perSecond;
    runs.push({ ...pair, ratio });
    options.log(`  throughput run ${run + 1}: bare ${pair.bare.perSecond.toFixed(0)}/s, ours ${pair.ours.perSecond.toFixed(0)}/s, ratio ${ratio.toFixed(2)}`);
  }
  return runs;
}

type Saturation = Awaited<ReturnType<typeof throughputPhase>>;

/** Every figure of the run, with the medians the report and the targets read. */
function capacityFigures(
  { options }: Bench,
  limits: ReturnType<typeof checkLimits>,
  held: Held,
  pacedRuns: readonly PacedRun[],
  saturation: Saturation,
  lives: Deliveries,
  memoryEnd: MemorySample,
  floor: FanoutFloor,
) {
  const { holdFull } = held;
  const perVisitor = (from: MemorySample, to: MemorySample, count: number) => ({
    rss: (to.rss - from.rss) / count,
    heapUsed: (to.heapUsed - from.heapUsed) / count,
    external: (to.external + to.arrayBuffers - from.external - from.arrayBuffers) / count,
  });
  const errors = {
    hold: holdFull.errorCount,
    visitorLives: lives.errorCount,
    pacedPolls: pacedRuns.reduce((sum, run) => sum + run.errorCount + run.unanswered, 0),
    releasesNotDelivered: pacedRuns.reduce((sum, run) => sum + run.releases.notDelivered, 0),
    queueMovedMissed: pacedRuns.reduce((sum, run) => sum + run.moves.missedByWaiting, 0),
    saturation: saturation.reduce((sum, pair) => sum + pair.bare.errorCount + pair.ours.errorCount, 0),
  };
  const errorTotal = Object.values(errors).reduce((sum, count) => sum + count, 0);
  const medianOf = (pick: (run: PacedRun) => number) => round(median(pacedRuns.map(pick)));
  const maxOf = (pick: (run: PacedRun) => number) => round(Math.max(...pacedRuns.map(pick)));
  const satMedian = (pick: (pair: Saturation[number]) => number) => median(saturation.map(pick));

  return {
    settings: { ...settingsOf(options), timeFactor: options.factor, store: options.redisUrl ? 'redis' : 'memory' },
    limits,
    hold: { full: holdFull, held: holdFull.held, serverStats: held.stats },
    memory: {
      baseline: held.baseline.atOnce,
      full: held.memoryFull.atOnce,
      end: memoryEnd,
      /** Right after the arrivals (as runs before settled samples measured it). */
      perVisitorBytes: perVisitor(held.baseline.atOnce, held.memoryFull.atOnce, holdFull.held),
      /** Settled samples (`settledMemory`): what the targets judge. */
      settled: {
        baseline: held.baseline.settled,
        full: held.memoryFull.settled,
        perVisitorBytes: perVisitor(held.baseline.settled, held.memoryFull.settled, holdFull.held),
      },
      /** In Redis (used_memory), for the Redis store: the line's share outside the server process. */
      storePerVisitorBytes:
        held.storeBaseline === undefined || held.storeFull === undefined ? undefined : (held.storeFull - held.storeBaseline) / holdFull.held,
    },
    paced: {
      runs: pacedRuns.map(({ releases, moves, fanout: _fanout, ...run }) => ({ ...run, releasesMs: releases.latencyMs, movesMs: moves.latencyMs })),
      median: {
        p50Ms: medianOf((run) => run.latencyMs.p50),
        p99Ms: medianOf((run) => run.latencyMs.p99),
        /** The longest the server's event loop was held, over every paced run, by the clock (waits for a core included). */
        serverLoopDelayMaxMs: maxOf((run) => run.serverLoopDelayMs.max),
        /** The longest hold by the server's own work: the CPU time its main thread used while its loop was held. */
        serverOwnHoldMaxMs: maxOf((run) => run.serverHolds.longestOwnMs),
        /** The GC pauses inside that longest hold. */
        serverOwnHoldGcMs: pacedRuns.reduce(
          (top, run) => (run.serverHolds.longestOwnMs > top.ownMs ? { ownMs: run.serverHolds.longestOwnMs, gcMs: run.serverHolds.longestOwnGcMs } : top),
          { ownMs: -1, gcMs: 0 },
        ).gcMs,
        serverHoldsOver20Ms: pacedRuns.reduce((sum, run) => sum + run.serverHolds.count, 0),
        /** Of those, the holds with a GC pause inside. */
        serverHoldsWithGc: pacedRuns.reduce((sum, run) => sum + (run.serverHolds.withGc ?? 0), 0),
        serverGcPauseMaxMs: maxOf((run) => run.serverGc.maxMs),
      },
    },
    releases: {
      runs: pacedRuns.map((run) => run.releases),
      median: {
        released: median(pacedRuns.map((run) => run.releases.released)),
        delivered: pacedRuns.reduce((sum, run) => sum + run.releases.delivered, 0),
        notDelivered: pacedRuns.reduce((sum, run) => sum + run.releases.notDelivered, 0),
        p50Ms: medianOf((run) => run.releases.latencyMs.p50),
        p99Ms: medianOf((run) => run.releases.latencyMs.p99),
      },
    },
    /** QueueMoved on App.Queue: one frame per release batch to every waiting visitor's socket. */
    moves: {
      runs: pacedRuns.map((run) => run.moves),
      median: {
        missedByWaiting: pacedRuns.reduce((sum, run) => sum + run.moves.missedByWaiting, 0),
        framesPerBatchP50: median(pacedRuns.map((run) => run.moves.framesPerBatch.p50)),
        p50Ms: medianOf((run) => run.moves.latencyMs.p50),
        p99Ms: medianOf((run) => run.moves.latencyMs.p99),
      },
    },
    /** The same fan-outs on the server's own clock: when its last socket was written. */
    fanout: {
      runs: pacedRuns.map((run) => run.fanout),
      median: {
        lastWriteP50Ms: medianOf((run) => run.fanout.lastWriteMs.p50),
        lastWriteP99Ms: medianOf((run) => run.fanout.lastWriteMs.p99),
        microsPerSocketP50: medianOf((run) => run.fanout.microsPerSocket.p50),
        /** One write to a loopback socket by a bare Node `net` server, in a plain loop: the platform's floor. */
        floor,
        queueInfoDuringP99Ms: medianOf((run) => run.fanout.queueInfoDuringMs.p99),
        queueInfoDuringCount: pacedRuns.reduce((sum, run) => sum + run.fanout.queueInfoDuringMs.count, 0),
        moves: pacedRuns.reduce((sum, run) => sum + run.fanout.moves, 0),
        superseded: pacedRuns.reduce((sum, run) => sum + run.fanout.superseded, 0),
      },
    },
    saturation: {
      runs: saturation,
      median: {
        barePerSecond: satMedian((pair) => pair.bare.perSecond),
        oursPerSecond: satMedian((pair) => pair.ours.perSecond),
        ratio: satMedian((pair) => pair.ratio),
        oursCpuMicrosPerRequest: round(satMedian((pair) => pair.ours.serverCpuMicrosPerRequest)),
        storeCpu: options.storeCpu ? satMedian((pair) => pair.ours.storeCpu ?? Number.NaN) : undefined,
      },
    },
    visitorLives: { ...lives, received: lives.received.length },
    errors: { ...errors, total: errorTotal },
  };
}

/** The options as numbers, without the functions, the page's folder and Redis's address. */
function settingsOf({ pageDir: _pageDir, log: _log, storeMemory: _memory, storeCpu: _cpu, redisUrl: _redis, ...settings }: CapacityOptions) {
  return settings;
}

/** Refuses to start when the open-file or port limits cannot hold the visitors; raises nothing. */
export function checkLimits(options: Pick<CapacityOptions, 'visitors' | 'connections' | 'pollSockets'> & { visitorProcesses?: number }) {
  const files = openFileLimit();
  const ports = localPortRange();
  // The server holds one socket per visitor plus the pollers' pools and its own files; each
  // visitors' process its share, from a source address of its own.
  const socketsPerProcess = options.visitors + Math.max(options.connections, options.pollSockets) + 64 + 200;
  if (files && socketsPerProcess > files.soft) {
    throw new Error(
      `BENCH_VISITORS=${options.visitors} needs about ${socketsPerProcess} open files per process, ` +
        `but the limit is ${files.soft} (ulimit -n). Lower BENCH_VISITORS or raise the limit yourself.`,
    );
  }
  const portsPerSource = Math.ceil(options.visitors / (options.visitorProcesses ?? 1)) + 264;
  const portCount = ports ? ports.high - ports.low + 1 : undefined;
  if (portCount !== undefined && portsPerSource > portCount) {
    throw new Error(`BENCH_VISITORS=${options.visitors} needs about ${portsPerSource} local ports per source address; the range has ${portCount}.`);
  }
  return { openFiles: files, localPorts: ports, socketsPerProcess };
}

export function serverEnv(
  options: Pick<CapacityOptions, 'activeLimit' | 'releasePerMinute' | 'sessionSeconds' | 'pageDir' | 'redisUrl'>,
  adminToken: string,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    PROTECT: '/checkout',
    ACTIVE_LIMIT: String(options.activeLimit),
    RELEASE_PER_MINUTE: String(options.releasePerMinute),
    SESSION_SECONDS: String(options.sessionSeconds),
    AWAY_SECONDS: '3600',
    ADMIN_TOKEN: adminToken,
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    LOG_LEVEL: 'warn',
    BENCH_PAGE_DIR: options.pageDir,
    // Each process of visitors connects from one loopback address: thousands of sockets each.
    REALTIME_MAX_CONNECTIONS_PER_ADDRESS: '10000000',
  };
  delete env.REDIS_URL;
  if (options.redisUrl) env.REDIS_URL = options.redisUrl;
  for (const name of Object.keys(env)) if (name.startsWith('PUSHER_')) delete env[name];
  return env;
}

export function adminClient(url: string, token: string) {
  return async (method: string, route: string, body: unknown = {}): Promise<unknown> => {
    const response = await fetch(url + route, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
      body: method === 'POST' ? JSON.stringify(body) : undefined,
    });
    if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${await response.text()}`);
    return response.json();
  };
}

export async function untilNoneActive(admin: ReturnType<typeof adminClient>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (((await admin('GET', '/admin/stats')) as { active: number }).active > 0) {
    if (Date.now() > deadline) throw new Error('admitted sessions did not end in time (SESSION_SECONDS)');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The share of one core a process used between two samples. */
export function cpuShare(before: CpuSample, after: CpuSample, seconds: number): number {
  return (after.user + after.system - before.user - before.system) / 1e6 / seconds;
}

/** The releases decided so far by `servers`: [uuid, decided at, handed to the sockets at]. */
export async function releasesDecided(servers: readonly Child<unknown>[]): Promise<[string, number, number | undefined][]> {
  return (await Promise.all(servers.map((server) => server.request<[string, number, number | undefined][]>('releases')))).flat();
}

/**
 * Joins the release decisions (recorded in the servers' stores) with the frames' arrival at the
 * visitors' sockets. Waits a little for frames still on their way; any release left without a
 * frame then counts as not delivered.
 */
export async function releaseLatency(
  servers: Child<unknown> | readonly Child<unknown>[],
  visitors: VisitorGroup,
  window: { readonly from: number; readonly countedFrom: number; readonly until: number },
) {
  const all = (await releasesDecided([servers].flat())).filter(([, at]) => at >= Math.floor(window.from) && at <= window.until);
  const during = await visitors.deliveries();
  const received = new Map(during.received);
  const deadline = Date.now() + 3000;
  while (all.some(([uuid]) => !received.has(uuid)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const [uuid, at] of (await visitors.deliveries()).received) received.set(uuid, at);
  }
  const total: number[] = [];
  const inServer: number[] = [];
  const toVisitor: number[] = [];
  let notDelivered = 0;
  let counted = 0;
  // Every release must reach its visitor, warm-up included; only the latency skips the warm-up.
  for (const [uuid, at, handed] of all) {
    const arrived = received.get(uuid);
    if (arrived === undefined) {
      notDelivered++;
      continue;
    }
    if (at < window.countedFrom) continue;
    counted++;
    total.push(arrived - at);
    if (handed !== undefined) {
      inServer.push(handed - at);
      toVisitor.push(arrived - handed);
    }
  }
  return {
    released: counted,
    delivered: total.length,
    notDelivered,
    /** Released during the warm-up (delivered too, but not in the latency). */
    warmupReleases: all.length - counted - notDelivered,
    latencyMs: distribution(total),
    /** Decision → the event handed to the server's sockets (store, fanout, events ahead of it). */
    inServerMs: distribution(inServer),
    /** Handed to the sockets → the frame read by a visitors' process. */
    toVisitorMs: distribution(toVisitor),
    /** The visitors' processes' event-loop delay meanwhile (the worst): a late frame may be their fault. */
    visitorsLoopDelayMs: during.loopDelayMs,
  };
}

/**
 * Joins the release batches (each one `QueueMoved`, recorded by the servers) with the frames'
 * arrival at every waiting visitor's socket. Runs after `releaseLatency`, which waited for the
 * last release frames; the last `QueueMoved` follows its batch's release events, so it waits a
 * little more for it.
 */
export async function moveLatency(
  servers: Child<unknown> | readonly Child<unknown>[],
  visitors: VisitorGroup,
  window: { readonly from: number; readonly countedFrom: number; readonly until: number },
): Promise<{ batches: MoveBatch[]; moves: Moves }> {
  const decided = (await Promise.all([servers].flat().map((server) => server.request<MoveBatch[]>('moves')))).flat();
  const batches = decided.filter(([, at]) => at >= Math.floor(window.from) && at <= window.until);
  // The last move may still be on its way to some sockets: wait for it a little.
  const latest = batches.reduce((top, [served]) => Math.max(top, served), 0);
  const deadline = Date.now() + 5000;
  while ((await visitors.lagging(latest)) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  return { batches, moves: await visitors.moves(batches, window.countedFrom) };
}

export async function closeAll(children: Child<unknown>[]): Promise<void> {
  for (const child of children.reverse()) {
    try {
      await Promise.race([child.request('close'), new Promise((resolve) => setTimeout(resolve, 5000))]);
    } catch {
      // A child that already exited has nothing to close.
    }
    await child.stop();
  }
}
