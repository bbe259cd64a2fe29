/**
 * The soak: N visitors wait on the memory store for many minutes at the page's own pace (queue_info
 * every 5 s and every 60 s, uncompressed), while the release loop lets some in and new visitors
 * take their places, so that the line stays N long. It looks for what a short run cannot show:
 * memory that creeps up (a leak per poll, per release or per socket), places that get lost, errors
 * that appear only after a while.
 *
 * The server's memory is sampled after a full GC at the end of every minute; its slope over the
 * minutes after the warm-up, as a share of the mean, is the figure judged (≤ 1 % a minute).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Child } from './capacity/ipc';
import type { PollResult } from './capacity/poller';
import type { CpuSample, MemorySample, ServerReady } from './capacity/protocol';
import { adminClient, checkLimits, closeAll, serverEnv, type CapacityOptions } from './capacity/run-capacity';
import type { Deliveries, HoldResult } from './capacity/visitors';

export interface SoakOptions {
  readonly visitors: number;
  readonly minutes: number;
  /** Minutes left out of the memory slope: the heap grows to its working size first. */
  readonly warmupMinutes: number;
  readonly releasePerMinute: number;
  readonly pageDir: string;
  readonly log: (line: string) => void;
}

const here = path.join(__dirname, 'capacity');

/** Runs the soak and returns its figures. */
export async function runSoak(options: SoakOptions) {
  const { log } = options;
  const capacityLike: CapacityOptions = {
    visitors: options.visitors,
    visitorProcesses: 1,
    factor: 1,
    pollSeconds: 60,
    pacedRepetitions: 1,
    saturateSeconds: 1,
    repetitions: 1,
    connections: 1,
    pollSockets: 256,
    releasePerMinute: options.releasePerMinute,
    // Room for a minute of releases: the rate is the limit, not the admitted sessions.
    activeLimit: Math.max(1, options.releasePerMinute),
    sessionSeconds: 30,
    pageDir: options.pageDir,
    log,
  };
  const limits = checkLimits(capacityLike);
  const adminToken = randomBytes(18).toString('base64url');
  const children: Child<unknown>[] = [];
  try {
    const server = await Child.start<ServerReady>(path.join(here, 'server.ts'), {
      name: 'soak server',
      execArgv: ['--expose-gc'],
      // Visitors who poll every 5 s are never silent long enough to be dropped: any drop is a lost place.
      env: { ...serverEnv(capacityLike, adminToken), ABANDON_SECONDS: '180' },
    });
    children.push(server);
    const admin = adminClient(server.ready.url, adminToken);
    await admin('POST', '/admin/pause');
    const generatorEnv = { ...process.env, BENCH_TARGET: server.ready.url };
    const load = await Child.start<{ pid: number }>(path.join(here, 'visitors.ts'), { name: 'visitors', env: generatorEnv });
    children.push(load);
    const poller = await Child.start<{ pid: number }>(path.join(here, 'poller.ts'), { name: 'poller', env: generatorEnv });
    children.push(poller);
    load.on('released', (uuid) => void poller.request('released', uuid).catch(() => undefined));

    const holdArg = { concurrency: 64, maxErrors: Math.max(10, Math.ceil(options.visitors / 100)) };
    log(`  holding ${options.visitors} visitors…`);
    const holds: HoldResult[] = [await load.request<HoldResult>('hold', { ...holdArg, visitors: options.visitors })];
    await admin('POST', '/admin/resume');

    const minutes: {
      minute: number;
      memory: MemorySample;
      serverCpu: number;
      waiting: number;
      released: number;
      polls: Pick<PollResult, 'answered' | 'errorCount' | 'unanswered' | 'errors' | 'latencyMs'>;
    }[] = [];
    for (let minute = 1; minute <= options.minutes; minute++) {
      // New visitors take the released ones' places, so the line stays N long.
      const released = (await load.request<Deliveries>('deliveries')).received.length;
      holds.push(await load.request<HoldResult>('hold', { ...holdArg, visitors: options.visitors + released }));
      await poller.request('visitors', await load.request('visitors'));
      const cpuBefore = await server.request<CpuSample>('cpu');
      const poll = await poller.request<PollResult>('poll', { seconds: 60, warmupSeconds: 0, factor: 1, sockets: 256 });
      const cpuAfter = await server.request<CpuSample>('cpu');
      const memory = await server.request<MemorySample>('memory');
      const stats = (await admin('GET', '/admin/stats')) as { waiting: number; released: number };
      minutes.push({
        minute,
        memory,
        serverCpu: (cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system) / 1e6 / poll.seconds,
        waiting: stats.waiting,
        released: stats.released,
        polls: {
          answered: poll.answered,
          errorCount: poll.errorCount,
          unanswered: poll.unanswered,
          errors: poll.errors,
          latencyMs: poll.latencyMs,
        },
      });
      log(
        `  minute ${minute}: RSS ${(memory.rss / 2 ** 20).toFixed(1)} MB, heap ${(memory.heapUsed / 2 ** 20).toFixed(1)} MB, ` +
          `${poll.answered} queue_info (p99 ${poll.latencyMs.p99} ms), ${poll.errorCount + poll.unanswered} errors, ` +
          `waiting ${stats.waiting}, released ${stats.released}`,
      );
    }
    const lives = await load.request<Deliveries>('deliveries');
    const afterWarmup = minutes.filter((sample) => sample.minute > options.warmupMinutes);
    const slope = (pick: (memory: MemorySample) => number) => relativeSlopePerMinute(afterWarmup.map((sample) => [sample.minute, pick(sample.memory)]));
    const errors = {
      hold: holds.reduce((sum, hold) => sum + hold.errorCount, 0),
      polls: minutes.reduce((sum, sample) => sum + sample.polls.errorCount + sample.polls.unanswered, 0),
      visitorLives: lives.errorCount,
    };
    // A place lost is a queue_info that no longer knows the visitor's uuid.
    const lostPlaces = minutes.reduce((sum, sample) => sum + (sample.polls.errors['queue_info: status 404']?.count ?? 0), 0);
    return {
      settings: { ...options, log: undefined, pageDir: undefined, store: 'memory' },
      limits,
      minutes,
      queueInfoAnswered: minutes.reduce((sum, sample) => sum + sample.polls.answered, 0),
      released: lives.received.length,
      // Each hold answers how many visitors were held in all so far.
      arrivals: holds.at(-1)?.held ?? 0,
      rssSlopePercentPerMinute: round(slope((memory) => memory.rss) * 100),
      heapSlopePercentPerMinute: round(slope((memory) => memory.heapUsed) * 100),
      lostPlaces,
      errors: { ...errors, total: errors.hold + errors.polls + errors.visitorLives },
    };
  } finally {
    await closeAll(children);
  }
}

export type SoakResult = Awaited<ReturnType<typeof runSoak>>;

/** The least-squares slope of `points` (x, y), divided by the mean of y: growth per unit of x as a share. */
export function relativeSlopePerMinute(points: readonly (readonly [number, number])[]): number {
  if (points.length < 2) return Number.NaN;
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / points.length;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / points.length;
  let covariance = 0;
  let variance = 0;
  for (const [x, y] of points) {
    covariance += (x - meanX) * (y - meanY);
    variance += (x - meanX) ** 2;
  }
  return covariance / variance / meanY;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
