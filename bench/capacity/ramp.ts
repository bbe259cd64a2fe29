/**
 * The capacity ramp: real visitors are added step by step (each held by a GET with its own
 * cookie, on a WebSocket subscribed to its channel and to App.Queue, queue_request, then polling
 * queue_info at the page's own pace: every 5 s and every 60 s), while the release loop releases,
 * until the first error or a release p99 over a second: the step before is the knee.
 *
 * One process holds at most about 19,000 sockets (the open-file limit), so the memory store — one
 * process, the line in its memory — ends there at the latest. On Redis the deployment is the one
 * docs/operations.md describes: one server process per core, sharing the line and the realtime events
 * through Redis, the visitors spread over them as a load balancer would. The load generator runs
 * in several processes too (visitors, each from its own loopback address, and pollers).
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { distribution, preciseNow } from '../stats';
import { Child } from './ipc';
import { openFileLimit } from './limits';
import type { PollResult } from './poller';
import type { CpuSample, MemorySample, ServerReady } from './protocol';
import { adminClient, closeAll, cpuShare, fanoutFigures, moveLatency, releaseLatency, SERVER_EXEC_ARGV, serverEnv, untilNoneActive } from './run-capacity';
import type { FanoutRecord } from './server';
import { sourceAddress, VisitorGroup } from './visitor-group';

export interface RampOptions {
  readonly store: 'memory' | 'redis';
  readonly redisUrl?: string;
  /** Visitors added at each step. */
  readonly step: number;
  /** Stop there even if nothing failed. */
  readonly maxVisitors: number;
  /** Seconds of polling at the page's pace measured at each step (after a short warm-up). */
  readonly measureSeconds: number;
  readonly releasePerMinute: number;
  /** A release p99 (decision → read by the visitor) over this ends the ramp. */
  readonly releaseP99LimitMs: number;
  readonly pageDir: string;
  readonly log: (line: string) => void;
}

/** Sockets one visitors' process holds at most, well inside its open-file limit. */
const VISITORS_PER_PROCESS = 9_000;
/** Keep-alive sockets of each poller, to each server. */
const POLL_SOCKETS = 128;
/** Sockets a server keeps for its own use (origin, Redis, files) beside the visitors'. */
const SERVER_RESERVE = 1_000;
const WARMUP_SECONDS = 2;
const SESSION_SECONDS = 5;

/** Runs the ramp on one store and returns every step and the knee. */
export async function runRamp(options: RampOptions) {
  const { log } = options;
  const files = openFileLimit();
  // One server process per core on Redis; the memory store is one process.
  const serverCount = options.store === 'redis' ? Math.max(2, os.cpus().length) : 1;
  const pollerCount = 2;
  const perServer = (files?.soft ?? 20_000) - SERVER_RESERVE - pollerCount * POLL_SOCKETS;
  const maxVisitors = Math.min(options.maxVisitors, serverCount * perServer);
  const bound = maxVisitors < options.maxVisitors ? `the open-file limit (${files?.soft}) of ${serverCount} server process(es)` : "the ramp's maximum";
  const adminToken = randomBytes(18).toString('base64url');
  const children: Child<unknown>[] = [];
  try {
    const env = {
      ...serverEnv(
        {
          activeLimit: Math.ceil(options.releasePerMinute / 6),
          releasePerMinute: options.releasePerMinute,
          sessionSeconds: SESSION_SECONDS,
          pageDir: options.pageDir,
          redisUrl: options.redisUrl,
        },
        adminToken,
      ),
      REALTIME_MAX_CONNECTIONS: String(perServer),
    };
    const servers: Child<ServerReady>[] = [];
    for (let index = 0; index < serverCount; index++) {
      const server = await Child.start<ServerReady>(path.join(__dirname, 'server.ts'), {
        name: `ramp server ${index + 1}`,
        execArgv: SERVER_EXEC_ARGV,
        env,
      });
      children.push(server);
      servers.push(server);
    }
    const admin = adminClient(servers[0].ready.url, adminToken);
    // The pause is the line's (in Redis, every instance's): nobody is released while arriving.
    await admin('POST', '/admin/pause');
    const visitors = await VisitorGroup.start({
      processes: Math.max(2, Math.ceil(maxVisitors / VISITORS_PER_PROCESS)),
      targets: servers.map((server) => server.ready.url),
      firstAddress: pollerCount,
    });
    children.push(...visitors.children);
    const pollers: Child<{ pid: number }>[] = [];
    for (let index = 0; index < pollerCount; index++) {
      const poller = await Child.start<{ pid: number }>(path.join(__dirname, 'poller.ts'), {
        name: `poller ${index + 1}`,
        env: { ...process.env, BENCH_TARGET: servers[0].ready.url, BENCH_SOURCE_ADDRESS: sourceAddress(index) },
      });
      children.push(poller);
      pollers.push(poller);
    }
    visitors.on('released', (uuid) => {
      for (const poller of pollers) void poller.request('released', uuid).catch(() => undefined);
    });
    log(
      `  ${options.store}: ${serverCount} server process(es), ${visitors.children.length} visitors' processes, ${pollerCount} pollers; ` +
        `+${options.step} visitors a step up to ${maxVisitors} (${bound}), releases at ${options.releasePerMinute}/min…`,
    );

    const steps: RampStep[] = [];
    let stoppedBy = `reached ${maxVisitors}, ${bound}`;
    for (let waiting = Math.min(options.step, maxVisitors); waiting <= maxVisitors; waiting += options.step) {
      const step = await rampStep({ options, servers, visitors, pollers, admin, waiting });
      steps.push(step);
      log(
        `  ${step.waiting} waiting: ${step.errors.total} errors; release p99 ${step.releases.latencyMs.p99} ms; ` +
          `queue_info ${step.polls.perSecond.toFixed(0)}/s p99 ${step.polls.latencyMs.p99} ms; QueueMoved read p99 ${step.moves.latencyMs.p99} ms ` +
          `(last written p99 ${step.fanout.lastWriteMs.p99} ms); server CPU ${step.servers.map((server) => `${(server.cpu * 100).toFixed(0)}%`).join(' ')}, ` +
          `loop delay max ${Math.max(...step.servers.map((server) => server.loopDelayMaxMs)).toFixed(0)} ms`,
      );
      if (step.errors.total > 0) {
        stoppedBy = `${step.errors.total} errors at ${step.waiting} waiting`;
        break;
      }
      if (!(step.releases.latencyMs.p99 <= options.releaseP99LimitMs)) {
        stoppedBy = `release p99 ${step.releases.latencyMs.p99} ms at ${step.waiting} waiting, over ${options.releaseP99LimitMs} ms`;
        break;
      }
      if (waiting < maxVisitors && waiting + options.step > maxVisitors) waiting = maxVisitors - options.step;
    }
    const passed = steps.filter((step) => step.errors.total === 0 && step.releases.latencyMs.p99 <= options.releaseP99LimitMs);
    return {
      settings: {
        ...options,
        log: undefined,
        pageDir: undefined,
        redisUrl: undefined,
        serverProcesses: serverCount,
        visitorProcesses: visitors.children.length,
        pollers: pollerCount,
        maxVisitors,
      },
      openFiles: files,
      steps,
      /** The most visitors waiting at a step with no error and the release p99 within its limit. */
      knee: passed.at(-1)?.waiting ?? 0,
      stoppedBy,
    };
  } finally {
    await closeAll(children);
  }
}

export type RampResult = Awaited<ReturnType<typeof runRamp>>;

interface StepContext {
  readonly options: RampOptions;
  readonly servers: readonly Child<ServerReady>[];
  readonly visitors: VisitorGroup;
  readonly pollers: readonly Child<{ pid: number }>[];
  readonly admin: ReturnType<typeof adminClient>;
  /** Visitors waiting once this step's have arrived. */
  readonly waiting: number;
}

/** One step: the new visitors arrive (releases paused), then everyone polls at the page's pace while the release loop runs. */
async function rampStep({ options, servers, visitors, pollers, admin, waiting }: StepContext) {
  const holdStarted = preciseNow();
  // Those released so far were held too: the processes count every visitor they ever held.
  const line = (await admin('GET', '/admin/stats')) as { waiting: number };
  const hold = await visitors.hold(visitors.everHeld + waiting - line.waiting, { concurrency: 64, maxErrors: Math.max(10, Math.ceil(options.step / 100)) });
  const holdSeconds = (preciseNow() - holdStarted) / 1000;
  await untilNoneActive(admin, SESSION_SECONDS * 1000 + 5000);
  const everyone = await visitors.visitors();
  const shares = pollers.map((_, index) => everyone.filter((__, at) => at % pollers.length === index));
  await Promise.all(pollers.map((poller, index) => poller.request('visitors', shares[index])));
  for (const server of servers) {
    await server.request('loopDelay');
    await server.request('fanouts');
  }
  await visitors.deliveries();
  await visitors.moves([], 0);
  const cpuBefore = await Promise.all(servers.map((server) => server.request<CpuSample>('cpu')));
  const resumedAt = preciseNow();
  await admin('POST', '/admin/resume');
  const polls = await Promise.all(
    pollers.map((poller) =>
      poller.request<PollResult>('poll', { seconds: options.measureSeconds, warmupSeconds: WARMUP_SECONDS, factor: 1, sockets: POLL_SOCKETS }),
    ),
  );
  await admin('POST', '/admin/pause');
  const pausedAt = preciseNow();
  const serverFigures = await Promise.all(
    servers.map(async (server, index) => ({
      cpu: cpuShare(cpuBefore[index], await server.request<CpuSample>('cpu'), (pausedAt - resumedAt) / 1000),
      loopDelayMaxMs: (await server.request<{ max: number }>('loopDelay')).max,
      rss: (await server.request<MemorySample>('memory')).rss,
    })),
  );
  const countedFrom = Math.max(...polls.map((poll) => poll.countedFrom));
  const window = { from: resumedAt, countedFrom, until: pausedAt };
  const releases = await releaseLatency(servers, visitors, window);
  const { batches, moves } = await moveLatency(servers, visitors, window);
  const records = await Promise.all(servers.map((server) => server.request<FanoutRecord[]>('fanouts')));
  const fanout = fanoutFigures(
    records,
    batches,
    countedFrom,
    polls.flatMap((poll) => poll.timeline),
  );
  const lives = await visitors.deliveries();
  const answered = polls.reduce((sum, poll) => sum + poll.answered, 0);
  const seconds = Math.max(...polls.map((poll) => poll.seconds));
  const errors = {
    hold: hold.errorCount,
    visitorLives: lives.errorCount,
    polls: polls.reduce((sum, poll) => sum + poll.errorCount + poll.unanswered, 0),
    releasesNotDelivered: releases.notDelivered,
    queueMovedMissed: moves.missedByWaiting,
  };
  return {
    waiting,
    hold: { held: hold.held, seconds: holdSeconds, latencyMs: hold.holdLatencyMs, errors: hold.errors },
    polls: {
      answered,
      perSecond: answered / seconds,
      offeredPerSecond: polls.reduce((sum, poll) => sum + poll.offeredPerSecond, 0),
      latencyMs: distribution(polls.flatMap((poll) => poll.timeline.map(([, ms]) => ms))),
      errors: Object.fromEntries(polls.flatMap((poll) => Object.entries(poll.errors))),
      generatorCpu: polls.map((poll) => poll.generatorCpu),
    },
    releases: {
      delivered: releases.delivered,
      notDelivered: releases.notDelivered,
      warmupReleases: releases.warmupReleases,
      latencyMs: releases.latencyMs,
    },
    moves: { sockets: moves.framesPerBatch.p50, latencyMs: moves.latencyMs, lastReadMs: moves.lastReadMs },
    fanout: { lastWriteMs: fanout.lastWriteMs, queueInfoDuringMs: fanout.queueInfoDuringMs },
    servers: serverFigures,
    visitorsLoopDelayMs: lives.loopDelayMs,
    lifeErrors: lives.errors,
    errors: { ...errors, total: Object.values(errors).reduce((sum, count) => sum + count, 0) },
  };
}

type RampStep = Awaited<ReturnType<typeof rampStep>>;
