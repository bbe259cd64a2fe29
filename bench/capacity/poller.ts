/**
 * The capacity benchmark's queue_info poller, in its own process: the held visitors' steady
 * polling, and the closed-loop throughput runs against our server and the bare one.
 *
 * Paced polling follows the page (spec section 7): every 5 s for anonymous visitors and every
 * 60 s for everyone, both divided by a time-compression factor, each visitor at its own random
 * phase; a visitor whose position comes back 0 (released) stops, as its page goes away.
 *
 * Requests from the orchestrator: `visitors` (who to poll, with their cookies), `poll`, `saturate`.
 */
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { distribution, preciseNow } from '../stats';
import type autocannon from 'autocannon';
import { loadSlice } from '../load';
import { Errors, errorKind, queueInfo, type PolledVisitor } from './http-client';
import { serveRequests } from './ipc';

/** The page's poll periods (spec section 9), before time compression. */
const ANONYMOUS_POLL_MS = 5_000;
const EVERYONE_POLL_MS = 60_000;

const target = new URL(process.env.BENCH_TARGET ?? 'http://127.0.0.1:8080');
/** The loopback address this process's sockets come from (each has its own range of ports). */
const localAddress = process.env.BENCH_SOURCE_ADDRESS || undefined;
const targetOf = new Map<string | undefined, URL>([[undefined, target]]);
/** The server that holds `visitor`. */
const serverOf = (visitor: PolledVisitor): URL => {
  let url = targetOf.get(visitor.target);
  if (!url) targetOf.set(visitor.target, (url = new URL(visitor.target as string)));
  return url;
};
let visitors: PolledVisitor[] = [];
/** Stops polling a released visitor, as its page goes away (set while paced polling runs). */
let releasedNow: (uuid: string) => void = () => undefined;

interface PollArg {
  readonly seconds: number;
  /** Not counted: the server warms its code paths and the polls spread out. */
  readonly warmupSeconds: number;
  /** Time compression: 2 polls twice as often as the page does. */
  readonly factor: number;
  readonly sockets: number;
}

/** Polls queue_info for every waiting visitor at the page's pace (compressed). */
async function poll(arg: PollArg) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: arg.sockets, localAddress });
  const errors = new Errors();
  const latencies: number[] = [];
  /** [sent at (ms since the epoch), latency ms] of every counted answer, to find those a fan-out overlapped. */
  const timeline: [number, number][] = [];
  const queuedMs: number[] = [];
  const delay = monitorEventLoopDelay({ resolution: 10 });
  const timers = new Map<PolledVisitor, NodeJS.Timeout[]>();
  let counting = false;
  let sent = 0;
  let settled = 0;
  let releasedSeen = 0;
  const stop = (visitor: PolledVisitor) => {
    for (const timer of timers.get(visitor) ?? []) clearInterval(timer);
    timers.delete(visitor);
  };
  const byUuid = new Map(visitors.map((visitor) => [visitor.uuid, visitor]));
  releasedNow = (uuid) => {
    const visitor = byUuid.get(uuid);
    if (visitor) stop(visitor);
  };
  const one = (visitor: PolledVisitor) => {
    const counted = counting;
    if (counted) sent++;
    const created = preciseNow();
    queueInfo(agent, serverOf(visitor), visitor).then(
      (answer) => {
        if (!counted) return;
        settled++;
        queuedMs.push(answer.queuedMs);
        if (answer.status !== 200) return errors.add(`queue_info: status ${answer.status}`, answer.body);
        latencies.push(answer.ms);
        timeline.push([Math.round((created + answer.queuedMs) * 100) / 100, Math.round(answer.ms * 100) / 100]);
        // Released before its page heard of it: the page would stop on the release event.
        if ((JSON.parse(answer.body) as { position: number }).position === 0) {
          releasedSeen++;
          stop(visitor);
        }
      },
      (error: unknown) => {
        if (!counted) return;
        settled++;
        errors.add(`queue_info: ${errorKind(error)}`, String(error));
      },
    );
  };
  for (const visitor of visitors) {
    const own: NodeJS.Timeout[] = [];
    timers.set(visitor, own);
    for (const period of [ANONYMOUS_POLL_MS / arg.factor, EVERYONE_POLL_MS / arg.factor]) {
      // A random phase, as visitors arrive at random times.
      own.push(
        setTimeout(() => {
          if (!timers.has(visitor)) return;
          one(visitor);
          own.push(setInterval(() => one(visitor), period));
        }, Math.random() * period),
      );
    }
  }
  await new Promise((resolve) => setTimeout(resolve, arg.warmupSeconds * 1000));
  counting = true;
  const countedFrom = preciseNow();
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  delay.enable();
  // Once a second: how many polls wait in this process for a free socket, to tell a slow
  // server from a generator that cannot keep up.
  const backlog: number[] = [];
  const sampler = setInterval(() => {
    backlog.push(Object.values(agent.requests).reduce((sum, list) => sum + (list?.length ?? 0), 0));
  }, 1000);
  await new Promise((resolve) => setTimeout(resolve, arg.seconds * 1000));
  clearInterval(sampler);
  for (const visitor of [...timers.keys()]) stop(visitor);
  releasedNow = () => undefined;
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  delay.disable();
  // Let the last answers come in before counting.
  const settleUntil = performance.now() + 5000;
  while (settled < sent && performance.now() < settleUntil) await new Promise((resolve) => setTimeout(resolve, 20));
  agent.destroy();
  const offered = visitors.length * arg.factor * 1000 * (1 / ANONYMOUS_POLL_MS + 1 / EVERYONE_POLL_MS);
  return {
    visitors: visitors.length,
    seconds: elapsed,
    warmupSeconds: arg.warmupSeconds,
    /** Epoch ms when counting began: releases decided earlier are the warm-up's. */
    countedFrom,
    offeredPerSecond: offered,
    sent,
    answered: latencies.length,
    perSecond: latencies.length / elapsed,
    latencyMs: distribution(latencies),
    timeline,
    errors: errors.snapshot(),
    errorCount: errors.total,
    unanswered: sent - settled,
    releasedSeen,
    generatorCpu: (cpu.user + cpu.system) / 1e6 / elapsed,
    generatorLoopDelayMs: { p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 },
    /** Time each poll waited in this process for a free socket (not in the latency above). */
    queuedInGeneratorMs: distribution(queuedMs),
    /** Polls waiting for a socket, sampled once a second. */
    backlog,
  };
}

interface SaturateArg {
  /** Base URLs by name: our server and the bare one. */
  readonly urls: Readonly<Record<string, string>>;
  /** The order of the slices, e.g. bare, ours, ours, bare, …: a drift in the machine's load cancels out. */
  readonly order: readonly string[];
  readonly connections: number;
  readonly sliceSeconds: number;
  /** One uncounted slice per name first: connections open, code warms up. */
  readonly warmupSeconds: number;
}

interface Tally {
  /** The visitors this name's server holds (`PolledVisitor.target`), or every visitor when none names it (the bare server). */
  readonly visitors: readonly PolledVisitor[];
  readonly latencies: number[];
  readonly errors: Errors;
  /** Answers of the uncounted warm-up slice: a server's CPU time over the whole run is theirs too. */
  warmupAnswered: number;
  seconds: number;
  cpuSeconds: number;
}

/**
 * Closed loop (autocannon): `connections` keep-alive connections each send the next waiting
 * visitor's queue_info (of those the name's server holds) as soon as the previous answer is in,
 * one slice per name in `order`. Returns the figures by name.
 */
async function saturate(arg: SaturateArg) {
  if (visitors.length === 0) throw new Error('no waiting visitor to poll');
  const tallies = new Map<string, Tally>();
  for (const name of new Set(arg.order)) {
    const origin = new URL(arg.urls[name]).origin;
    const own = visitors.filter((visitor) => visitor.target !== undefined && new URL(visitor.target).origin === origin);
    const tally: Tally = {
      visitors: own.length > 0 ? own : visitors,
      latencies: [],
      errors: new Errors(),
      warmupAnswered: 0,
      seconds: 0,
      cpuSeconds: 0,
    };
    tallies.set(name, tally);
    await slice(new URL(arg.urls[name]), arg.connections, arg.warmupSeconds, tally, false);
  }
  for (const name of arg.order) await slice(new URL(arg.urls[name]), arg.connections, arg.sliceSeconds, tallies.get(name)!, true);
  return Object.fromEntries(
    [...tallies].map(([name, tally]) => [
      name,
      {
        url: arg.urls[name],
        connections: arg.connections,
        seconds: tally.seconds,
        visitors: tally.visitors.length,
        answered: tally.latencies.length,
        warmupAnswered: tally.warmupAnswered,
        perSecond: tally.latencies.length / tally.seconds,
        latencyMs: distribution(tally.latencies),
        errors: tally.errors.snapshot(),
        errorCount: tally.errors.total,
        generatorCpu: tally.cpuSeconds / tally.seconds,
      },
    ]),
  );
}

/** One slice of the closed loop, each request a visitor's queue_info with its cookie, as the page's fetch sends it. */
async function slice(base: URL, connections: number, seconds: number, tally: Tally, counted: boolean): Promise<void> {
  const { visitors } = tally;
  let next = Math.floor(Math.random() * visitors.length);
  const setupRequest = (request: autocannon.Request) => {
    const visitor = visitors[next++ % visitors.length];
    return { ...request, path: `/queue/info/${visitor.uuid}`, headers: { cookie: visitor.cookie, accept: 'application/json' } };
  };
  const cpuBefore = process.cpuUsage();
  const answers = await loadSlice({ url: base.origin, connections, seconds, requests: [{ setupRequest }] });
  if (!counted) {
    tally.warmupAnswered += answers.latencies.length;
    return;
  }
  const cpu = process.cpuUsage(cpuBefore);
  tally.latencies.push(...answers.latencies);
  for (let i = 0; i < answers.errors; i++) tally.errors.add('queue_info: failed or not 200');
  tally.seconds += answers.seconds;
  tally.cpuSeconds += (cpu.user + cpu.system) / 1e6;
}

export type PollResult = Awaited<ReturnType<typeof poll>>;
export type SaturateResult = Awaited<ReturnType<typeof saturate>>[string];

serveRequests(
  { pid: process.pid },
  {
    visitors: (list: PolledVisitor[]) => {
      visitors = list;
      return list.length;
    },
    poll: (arg: PollArg) => poll(arg),
    released: (uuid: string) => releasedNow(uuid),
    saturate: (arg: SaturateArg) => saturate(arg),
  },
);
