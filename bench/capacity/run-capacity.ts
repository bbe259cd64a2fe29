/**
 * The server capacity benchmark: our server, a bare Node `http` server and the load generator,
 * each in its own process. Holds N anonymous visitors at once, measures the server's memory per
 * waiting visitor, paced queue_info polling with releases under way (release-to-delivery
 * latency), then queue_info throughput in a closed loop against ours and the bare server.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { distribution, median, preciseNow } from '../stats';
import { Child } from './ipc';
import { localPortRange, openFileLimit } from './limits';
import type { PollResult, SaturateResult } from './poller';
import type { Deliveries, HoldResult, MoveBatch, Moves } from './visitors';
import type { CpuSample, MemorySample } from './protocol';

export interface CapacityOptions {
  readonly visitors: number;
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
  /** Write a V8 CPU profile of the server into this folder. */
  readonly cpuProfileDir?: string;
  readonly log: (line: string) => void;
}

const round = (value: number) => Math.round(value * 100) / 100;

type LoopDelay = { p50: number; p99: number; max: number };
type Ready = { url: string; port: number; pid: number };

const here = __dirname;
/** Paced polling first runs this long uncounted: code paths warm up and the polls spread out. */
const PACED_WARMUP_SECONDS = 3;
/** The closed loop first runs this long uncounted on each server (new connections, warm code). */
const SLICE_WARMUP_SECONDS = 1;
/** Alternating slices per closed-loop run, half on each server. */
const SLICES = 8;

/** Runs the whole capacity benchmark and returns its figures. */
export async function runCapacity(options: CapacityOptions) {
  const { log } = options;
  const limits = checkLimits(options);
  const adminToken = randomBytes(18).toString('base64url');
  const children: Child<unknown>[] = [];
  try {
    const bare = await Child.start<Ready>(path.join(here, 'bare-server.ts'), { name: 'bare server' });
    children.push(bare);
    const server = await Child.start<Ready>(path.join(here, 'server.ts'), {
      name: 'bench server',
      execArgv: ['--expose-gc'],
      env: serverEnv(options, adminToken),
    });
    children.push(server);
    const admin = adminClient(server.ready.url, adminToken);
    // Nobody is released while visitors arrive: each must be subscribed before its release.
    await admin('POST', '/admin/pause');
    const baseline = await server.request<MemorySample>('memory');
    const storeBaseline = await options.storeMemory?.();

    const generatorEnv = { ...process.env, BENCH_TARGET: server.ready.url };
    const load = await Child.start<{ pid: number }>(path.join(here, 'visitors.ts'), { name: 'visitors', env: generatorEnv });
    children.push(load);
    const poller = await Child.start<{ pid: number }>(path.join(here, 'poller.ts'), { name: 'poller', env: generatorEnv });
    children.push(poller);

    const half = Math.floor(options.visitors / 2);
    const holdArg = { concurrency: 64, maxErrors: Math.max(10, Math.ceil(options.visitors / 100)) };
    log(`  holding ${options.visitors} visitors…`);
    const holdHalf = await load.request<HoldResult>('hold', { ...holdArg, visitors: half });
    const memoryHalf = await server.request<MemorySample>('memory');
    const holdFull = await load.request<HoldResult>('hold', { ...holdArg, visitors: options.visitors });
    const memoryFull = await server.request<MemorySample>('memory');
    const storeFull = await options.storeMemory?.();
    const stats = await admin('GET', '/admin/stats');
    log(`  held ${holdFull.held} (${(holdHalf.seconds + holdFull.seconds).toFixed(1)} s); server says ${JSON.stringify(stats)}`);

    // The sessions admitted before anyone waited must end first, or they take the release room.
    await untilNoneActive(admin, options.sessionSeconds * 1000 + 5000);

    log(`  paced polling: ${options.pacedRepetitions} runs of ${options.pollSeconds} s at ×${options.factor}, releases at ${options.releasePerMinute}/min…`);
    // A released visitor's page goes away: its polling stops when its socket hears the release.
    load.on('released', (uuid) => void poller.request('released', uuid).catch(() => undefined));
    const pacedRuns = [];
    const profiles: string[] = [];
    const profile = async <T>(name: string, phase: () => Promise<T>): Promise<T> => {
      if (!options.cpuProfileDir) return phase();
      await server.request('profileStart');
      try {
        return await phase();
      } finally {
        profiles.push(await server.request<string>('profileStop', path.join(options.cpuProfileDir, `${name}.cpuprofile`)));
      }
    };
    for (let run = 0; run < options.pacedRepetitions; run++) {
      await poller.request('visitors', await load.request('visitors'));
      const cpuBefore = await server.request<CpuSample>('cpu');
      await server.request('loopDelay');
      await load.request('deliveries');
      await load.request('moves', { batches: [], countedFrom: 0 });
      const resumedAt = preciseNow();
      await admin('POST', '/admin/resume');
      const paced = await profile(`paced-${run + 1}`, () =>
        poller.request<PollResult>('poll', {
          seconds: options.pollSeconds,
          warmupSeconds: PACED_WARMUP_SECONDS,
          factor: options.factor,
          sockets: options.pollSockets,
        }),
      );
      await admin('POST', '/admin/pause');
      const pausedAt = preciseNow();
      const serverCpu = cpuShare(cpuBefore, await server.request<CpuSample>('cpu'), (pausedAt - resumedAt) / 1000);
      const serverLoopDelayMs = await server.request<LoopDelay>('loopDelay');
      const releases = await releaseLatency(server, load, { from: resumedAt, countedFrom: paced.countedFrom, until: pausedAt });
      const moves = await moveLatency(server, load, { from: resumedAt, countedFrom: paced.countedFrom, until: pausedAt });
      pacedRuns.push({ ...paced, serverCpu, serverLoopDelayMs, releases, moves });
      log(
        `  paced run ${run + 1}: queue_info ${paced.perSecond.toFixed(0)}/s (p50 ${paced.latencyMs.p50} ms, p99 ${paced.latencyMs.p99} ms); ` +
          `${releases.delivered}/${releases.released} releases delivered, p50 ${releases.latencyMs.p50} ms, p99 ${releases.latencyMs.p99} ms; ` +
          `QueueMoved ${moves.counted} frames of ${moves.countedBatches} batches, p50 ${moves.latencyMs.p50} ms, p99 ${moves.latencyMs.p99} ms, ${moves.missedByWaiting} missed; ` +
          `server loop delay max ${serverLoopDelayMs.max.toFixed(1)} ms`,
      );
    }

    // Released visitors are gone: the closed loop polls those still waiting.
    await poller.request('visitors', await load.request('visitors'));
    type Measured = SaturateResult & { serverCpu: number; serverCpuMicrosPerRequest: number; storeCpu?: number };
    const saturation: { bare: Measured; ours: Measured; ratio: number }[] = [];
    for (let run = 0; run < options.repetitions; run++) {
      // ABBA ABBA…, and BAAB… the next time: a drift in the machine's load cancels out.
      const [first, second] = run % 2 === 0 ? ['bare', 'ours'] : ['ours', 'bare'];
      const order = Array.from({ length: SLICES }, (_, index) => (index % 4 === 0 || index % 4 === 3 ? first : second));
      const sliceSeconds = (2 * options.saturateSeconds) / SLICES;
      const before = { bare: await bare.request<CpuSample>('cpu'), ours: await server.request<CpuSample>('cpu') };
      const storeCpuBefore = await options.storeCpu?.();
      const result = await profile(`throughput-${run + 1}`, () =>
        poller.request<Record<'bare' | 'ours', SaturateResult>>('saturate', {
          urls: { bare: bare.ready.url, ours: server.ready.url },
          order,
          connections: options.connections,
          sliceSeconds,
          warmupSeconds: SLICE_WARMUP_SECONDS,
        }),
      );
      // Each server is idle outside its own slices: its CPU time over the run is that of its slices.
      const busySeconds = options.saturateSeconds + SLICE_WARMUP_SECONDS;
      const storeCpuAfter = await options.storeCpu?.();
      const withCpu = (figures: SaturateResult, serverCpu: number) => ({
        ...figures,
        serverCpu,
        /** Server CPU time per answered request: what each answer costs, whatever else ran. */
        serverCpuMicrosPerRequest: (serverCpu * busySeconds * 1e6) / (figures.perSecond * figures.seconds),
      });
      const pair = {
        bare: withCpu(result.bare, cpuShare(before.bare, await bare.request<CpuSample>('cpu'), busySeconds)),
        ours: {
          ...withCpu(result.ours, cpuShare(before.ours, await server.request<CpuSample>('cpu'), busySeconds)),
          storeCpu: storeCpuBefore === undefined || storeCpuAfter === undefined ? undefined : (storeCpuAfter - storeCpuBefore) / busySeconds,
        },
      };
      const ratio = pair.ours.perSecond / pair.bare.perSecond;
      saturation.push({ ...pair, ratio });
      log(`  throughput run ${run + 1}: bare ${pair.bare.perSecond.toFixed(0)}/s, ours ${pair.ours.perSecond.toFixed(0)}/s, ratio ${ratio.toFixed(2)}`);
    }
    const lives = await load.request<Deliveries>('deliveries');
    const memoryEnd = await server.request<MemorySample>('memory');

    const perVisitor = (from: MemorySample, to: MemorySample, count: number) => ({
      rss: (to.rss - from.rss) / count,
      heapUsed: (to.heapUsed - from.heapUsed) / count,
      external: (to.external + to.arrayBuffers - from.external - from.arrayBuffers) / count,
    });
    const held = holdFull.held;
    const errors = {
      hold: holdHalf.errorCount + holdFull.errorCount,
      visitorLives: lives.errorCount,
      pacedPolls: pacedRuns.reduce((sum, run) => sum + run.errorCount + run.unanswered, 0),
      releasesNotDelivered: pacedRuns.reduce((sum, run) => sum + run.releases.notDelivered, 0),
      queueMovedMissed: pacedRuns.reduce((sum, run) => sum + run.moves.missedByWaiting, 0),
      saturation: saturation.reduce((sum, pair) => sum + pair.bare.errorCount + pair.ours.errorCount, 0),
    };
    const errorTotal = Object.values(errors).reduce((sum, count) => sum + count, 0);

    return {
      settings: {
        visitors: options.visitors,
        timeFactor: options.factor,
        pollSeconds: options.pollSeconds,
        pacedRepetitions: options.pacedRepetitions,
        saturateSeconds: options.saturateSeconds,
        repetitions: options.repetitions,
        connections: options.connections,
        pollSockets: options.pollSockets,
        releasePerMinute: options.releasePerMinute,
        activeLimit: options.activeLimit,
        sessionSeconds: options.sessionSeconds,
        store: options.redisUrl ? 'redis' : 'memory',
      },
      limits,
      hold: { half: holdHalf, full: holdFull, held, serverStats: stats },
      memory: {
        baseline,
        half: memoryHalf,
        full: memoryFull,
        end: memoryEnd,
        perVisitorBytes: perVisitor(baseline, memoryFull, held),
        perVisitorBytesSecondHalf: perVisitor(memoryHalf, memoryFull, held - holdHalf.held),
        /** In Redis (used_memory), for the Redis store: the line's share outside the server process. */
        storePerVisitorBytes: storeBaseline === undefined || storeFull === undefined ? undefined : (storeFull - storeBaseline) / held,
      },
      paced: {
        runs: pacedRuns.map(({ releases, moves, ...run }) => ({ ...run, releasesMs: releases.latencyMs, movesMs: moves.latencyMs })),
        median: {
          perSecond: median(pacedRuns.map((run) => run.perSecond)),
          offeredPerSecond: median(pacedRuns.map((run) => run.offeredPerSecond)),
          p50Ms: round(median(pacedRuns.map((run) => run.latencyMs.p50))),
          p99Ms: round(median(pacedRuns.map((run) => run.latencyMs.p99))),
          serverCpu: median(pacedRuns.map((run) => run.serverCpu)),
          generatorCpu: median(pacedRuns.map((run) => run.generatorCpu)),
          queuedInGeneratorP99Ms: round(median(pacedRuns.map((run) => run.queuedInGeneratorMs.p99))),
        },
      },
      releases: {
        runs: pacedRuns.map((run) => run.releases),
        median: {
          released: median(pacedRuns.map((run) => run.releases.released)),
          delivered: pacedRuns.reduce((sum, run) => sum + run.releases.delivered, 0),
          notDelivered: pacedRuns.reduce((sum, run) => sum + run.releases.notDelivered, 0),
          p50Ms: round(median(pacedRuns.map((run) => run.releases.latencyMs.p50))),
          p90Ms: round(median(pacedRuns.map((run) => run.releases.latencyMs.p90))),
          p99Ms: round(median(pacedRuns.map((run) => run.releases.latencyMs.p99))),
          inServerP99Ms: round(median(pacedRuns.map((run) => run.releases.inServerMs.p99))),
          toVisitorP99Ms: round(median(pacedRuns.map((run) => run.releases.toVisitorMs.p99))),
        },
      },
      /** QueueMoved on App.Queue: one frame per release batch to every waiting visitor's socket. */
      moves: {
        runs: pacedRuns.map((run) => run.moves),
        median: {
          batches: pacedRuns.reduce((sum, run) => sum + run.moves.countedBatches, 0),
          frames: pacedRuns.reduce((sum, run) => sum + run.moves.frames, 0),
          counted: pacedRuns.reduce((sum, run) => sum + run.moves.counted, 0),
          missedByWaiting: pacedRuns.reduce((sum, run) => sum + run.moves.missedByWaiting, 0),
          framesPerBatchP50: median(pacedRuns.map((run) => run.moves.framesPerBatch.p50)),
          p50Ms: round(median(pacedRuns.map((run) => run.moves.latencyMs.p50))),
          p90Ms: round(median(pacedRuns.map((run) => run.moves.latencyMs.p90))),
          p99Ms: round(median(pacedRuns.map((run) => run.moves.latencyMs.p99))),
          toVisitorP99Ms: round(median(pacedRuns.map((run) => run.moves.toVisitorMs.p99))),
        },
      },
      saturation: {
        runs: saturation,
        median: {
          barePerSecond: median(saturation.map((pair) => pair.bare.perSecond)),
          oursPerSecond: median(saturation.map((pair) => pair.ours.perSecond)),
          ratio: median(saturation.map((pair) => pair.ratio)),
          oursP50Ms: round(median(saturation.map((pair) => pair.ours.latencyMs.p50))),
          oursP99Ms: round(median(saturation.map((pair) => pair.ours.latencyMs.p99))),
          bareP50Ms: round(median(saturation.map((pair) => pair.bare.latencyMs.p50))),
          bareP99Ms: round(median(saturation.map((pair) => pair.bare.latencyMs.p99))),
          oursServerCpu: median(saturation.map((pair) => pair.ours.serverCpu)),
          bareServerCpu: median(saturation.map((pair) => pair.bare.serverCpu)),
          generatorCpuOurs: median(saturation.map((pair) => pair.ours.generatorCpu)),
          generatorCpuBare: median(saturation.map((pair) => pair.bare.generatorCpu)),
          oursCpuMicrosPerRequest: round(median(saturation.map((pair) => pair.ours.serverCpuMicrosPerRequest))),
          bareCpuMicrosPerRequest: round(median(saturation.map((pair) => pair.bare.serverCpuMicrosPerRequest))),
          storeCpu: options.storeCpu ? median(saturation.map((pair) => pair.ours.storeCpu ?? Number.NaN)) : undefined,
        },
      },
      visitorLives: { ...lives, received: lives.received.length },
      errors: { ...errors, total: errorTotal },
      cpuProfiles: profiles,
    };
  } finally {
    await closeAll(children);
  }
}

export type CapacityResult = Awaited<ReturnType<typeof runCapacity>>;

/** Refuses to start when the open-file or port limits cannot hold the visitors; raises nothing. */
export function checkLimits(options: CapacityOptions) {
  const files = openFileLimit();
  const ports = localPortRange();
  // Each process holds one socket per visitor plus its pools and its own files.
  const socketsPerProcess = options.visitors + Math.max(options.connections, options.pollSockets) + 64 + 200;
  if (files && socketsPerProcess > files.soft) {
    throw new Error(
      `BENCH_VISITORS=${options.visitors} needs about ${socketsPerProcess} open files per process, ` +
        `but the limit is ${files.soft} (ulimit -n). Lower BENCH_VISITORS or raise the limit yourself.`,
    );
  }
  const portCount = ports ? ports.high - ports.low + 1 : undefined;
  if (portCount !== undefined && socketsPerProcess > portCount) {
    throw new Error(`BENCH_VISITORS=${options.visitors} needs about ${socketsPerProcess} local ports; the range has ${portCount}.`);
  }
  return { openFiles: files, localPorts: ports, socketsPerProcess };
}

export function serverEnv(options: CapacityOptions, adminToken: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    PROTECT: '/checkout',
    ACTIVE_LIMIT: String(options.activeLimit),
    RELEASE_PER_MINUTE: String(options.releasePerMinute),
    SESSION_SECONDS: String(options.sessionSeconds),
    ABANDON_SECONDS: '3600',
    ADMIN_TOKEN: adminToken,
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    LOG_LEVEL: 'warn',
    BENCH_PAGE_DIR: options.pageDir,
  };
  delete env.REDIS_URL;
  if (options.redisUrl) env.REDIS_URL = options.redisUrl;
  for (const name of Object.keys(env)) if (name.startsWith('PUSHER_')) delete env[name];
  return env;
}

export function adminClient(url: string, token: string) {
  return async (method: string, route: string): Promise<unknown> => {
    const response = await fetch(url + route, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
      body: method === 'POST' ? '{}' : undefined,
    });
    if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${await response.text()}`);
    return response.json();
  };
}

async function untilNoneActive(admin: ReturnType<typeof adminClient>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (((await admin('GET', '/admin/stats')) as { active: number }).active > 0) {
    if (Date.now() > deadline) throw new Error('admitted sessions did not end in time (SESSION_SECONDS)');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The share of one core a process used between two samples. */
function cpuShare(before: CpuSample, after: CpuSample, seconds: number): number {
  return (after.user + after.system - before.user - before.system) / 1e6 / seconds;
}

/**
 * Joins the release decisions (recorded in the server's store) with the frames' arrival at the
 * visitors' sockets. Waits a little for frames still on their way; any release left without a
 * frame then counts as not delivered.
 */
async function releaseLatency(
  server: Child<unknown>,
  load: Child<unknown>,
  window: { readonly from: number; readonly countedFrom: number; readonly until: number },
) {
  const all = (await server.request<[string, number, number | undefined][]>('releases')).filter(
    ([, at]) => at >= Math.floor(window.from) && at <= window.until,
  );
  const during = await load.request<Deliveries>('deliveries');
  const received = new Map(during.received);
  const deadline = Date.now() + 3000;
  while (all.some(([uuid]) => !received.has(uuid)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const [uuid, at] of (await load.request<Deliveries>('deliveries')).received) received.set(uuid, at);
  }
  const total: number[] = [];
  const inServer: number[] = [];
  const toVisitor: number[] = [];
  const each: [number, number, number][] = [];
  const tenth = (value: number) => Math.round(value * 10) / 10;
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
    each.push([Math.round(at - window.countedFrom), tenth(arrived - at), handed === undefined ? Number.NaN : tenth(handed - at)]);
  }
  return {
    released: counted,
    delivered: total.length,
    notDelivered,
    /** Released during the warm-up (delivered too, but not in the latency). */
    warmupReleases: all.length - counted - notDelivered,
    latencyMs: distribution(total),
    /** Decision → the event handed to the server's sockets (store, events API call, fanout). */
    inServerMs: distribution(inServer),
    /** Handed to the sockets → the frame read by the visitors' process. */
    toVisitorMs: distribution(toVisitor),
    /** The visitors' process event-loop delay meanwhile: a late frame may be its fault. */
    visitorsLoopDelayMs: during.loopDelayMs,
    /** Each release step (the loop releases a batch at once): [ms since counting began, releases, slowest total ms, slowest in-server ms]. */
    steps: batches(each),
  };
}

/**
 * Joins the release batches (each one `QueueMoved`, recorded by the server) with the frames'
 * arrival at every waiting visitor's socket. Runs after `releaseLatency`, which waited for the
 * last release frames; the last `QueueMoved` follows its batch's release events, so it waits a
 * little more for it.
 */
async function moveLatency(
  server: Child<unknown>,
  load: Child<unknown>,
  window: { readonly from: number; readonly countedFrom: number; readonly until: number },
): Promise<Moves> {
  await new Promise((resolve) => setTimeout(resolve, 500));
  const batches = (await server.request<MoveBatch[]>('moves')).filter(([, at]) => at >= Math.floor(window.from) && at <= window.until);
  return load.request<Moves>('moves', { batches, countedFrom: window.countedFrom });
}

/** Groups releases decided within 50 ms of each other: one step of the release loop. */
function batches(each: readonly [number, number, number][]): [number, number, number, number][] {
  const steps: [number, number, number, number][] = [];
  for (const [at, total, inServer] of [...each].sort((a, b) => a[0] - b[0])) {
    const last = steps[steps.length - 1];
    if (last && at - last[0] < 50) {
      last[1]++;
      last[2] = Math.max(last[2], total);
      last[3] = Math.max(last[3], inServer);
    } else steps.push([at, 1, total, inServer]);
  }
  return steps;
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
