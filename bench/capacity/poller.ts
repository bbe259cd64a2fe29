/**
 * The capacity benchmark's queue_info poller, in its own process (from `BENCH_SOURCE_ADDRESS`).
 * Paced polling follows the page (spec section 7): every 5 s and every 60 s ÷ a time-compression
 * factor, each visitor at its own random phase; a visitor released stops, as its page goes away.
 */
import http from 'node:http';
import type autocannon from 'autocannon';
import { distribution, preciseNow } from '../stats';
import { loadSlice } from '../load';
import { Errors, errorKind, queueInfo, type PolledVisitor } from './http-client';
import { serveRequests } from './ipc';

/** The page's poll periods (spec section 9), before time compression. */
const POLL_PERIODS_MS = [5_000, 60_000];

const localAddress = process.env.BENCH_SOURCE_ADDRESS || undefined;
let visitors: PolledVisitor[] = [];
/** Stops polling a released visitor (set while paced polling runs). */
let releasedNow: (uuid: string) => void = () => undefined;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `warmupSeconds` not counted: the server warms its code paths and the polls spread out; `factor` 2 polls twice as often as the page. */
export type PollArg = { seconds: number; warmupSeconds: number; factor: number; sockets: number };

/** Polls queue_info for every waiting visitor at the page's pace (compressed). */
async function poll(arg: PollArg) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: arg.sockets, localAddress });
  const urls = new Map(visitors.map((visitor) => [visitor.target, new URL(visitor.target)]));
  const errors = new Errors();
  /** [sent at (ms since the epoch), latency ms] of every counted answer, to find those a fan-out overlapped. */
  const timeline: [number, number][] = [];
  const timers = new Map<string, NodeJS.Timeout[]>();
  let counting = false;
  let [sent, settled] = [0, 0];
  const stop = (uuid: string) => {
    for (const timer of timers.get(uuid) ?? []) clearInterval(timer);
    timers.delete(uuid);
  };
  releasedNow = stop;
  const one = (visitor: PolledVisitor) => {
    const counted = counting;
    if (counted) sent++;
    const created = preciseNow();
    queueInfo(agent, urls.get(visitor.target)!, visitor)
      .then(
        (answer) => {
          if (!counted) return;
          if (answer.status !== 200) return errors.add(`queue_info: status ${answer.status}`, answer.body);
          timeline.push([Math.round((created + answer.queuedMs) * 100) / 100, Math.round(answer.ms * 100) / 100]);
          // Released before its page heard of it: the page would stop on the release event.
          if ((JSON.parse(answer.body) as { position: number }).position === 0) stop(visitor.uuid);
        },
        (error: unknown) => counted && errors.add(`queue_info: ${errorKind(error)}`, String(error)),
      )
      .finally(() => (settled += counted ? 1 : 0));
  };
  for (const visitor of visitors) {
    const own: NodeJS.Timeout[] = [];
    timers.set(visitor.uuid, own);
    for (const period of POLL_PERIODS_MS.map((ms) => ms / arg.factor)) {
      // A random phase, as visitors arrive at random times.
      const first = () => timers.has(visitor.uuid) && (one(visitor), own.push(setInterval(() => one(visitor), period)));
      own.push(setTimeout(first, Math.random() * period));
    }
  }
  await sleep(arg.warmupSeconds * 1000);
  counting = true;
  const countedFrom = preciseNow();
  await sleep(arg.seconds * 1000);
  const seconds = (preciseNow() - countedFrom) / 1000;
  for (const uuid of [...timers.keys()]) stop(uuid);
  releasedNow = () => undefined;
  // Let the last answers come in before counting.
  for (let waited = 0; settled < sent && waited < 5000; waited += 20) await sleep(20);
  agent.destroy();
  const latencies = timeline.map(([, ms]) => ms);
  return {
    countedFrom,
    seconds,
    answered: latencies.length,
    perSecond: latencies.length / seconds,
    latencyMs: distribution(latencies),
    timeline,
    errors: errors.counts,
    errorCount: errors.total + sent - settled,
  };
}

/**
 * Base URLs by name (ours and the bare server, or the two stores); the order of the slices (A, B,
 * B, A, …: a drift in the machine's load cancels out), after one uncounted slice per name.
 */
export type SaturateArg = { urls: Record<string, string>; order: string[]; connections: number; sliceSeconds: number; warmupSeconds: number };

/**
 * Closed loop (autocannon): `connections` keep-alive connections each send the next waiting
 * visitor's queue_info (of those the name's server holds, or any for the bare server) as soon as
 * the previous answer is in, one slice per name in `order`. Returns the figures by name.
 */
async function saturate(arg: SaturateArg) {
  if (visitors.length === 0) throw new Error('no waiting visitor to poll');
  const tallies: Record<string, { latencies: number[]; errors: number; warmupAnswered: number; seconds: number; cpuSeconds: number }> = {};
  const slice = async (name: string, seconds: number, counted: boolean) => {
    const url = new URL(arg.urls[name]).origin;
    const own = visitors.filter((visitor) => visitor.target === url);
    const polled = own.length > 0 ? own : visitors;
    let next = Math.floor(Math.random() * polled.length);
    const setupRequest = (request: autocannon.Request) => {
      const { uuid, cookie } = polled[next++ % polled.length];
      return { ...request, path: `/queue/info/${uuid}`, headers: { cookie, accept: 'application/json' } };
    };
    const cpuBefore = process.cpuUsage();
    const answers = await loadSlice({ url, connections: arg.connections, seconds, requests: [{ setupRequest }] });
    const cpu = process.cpuUsage(cpuBefore);
    const tally = (tallies[name] ??= { latencies: [], errors: 0, warmupAnswered: 0, seconds: 0, cpuSeconds: 0 });
    if (!counted) return void (tally.warmupAnswered += answers.latencies.length);
    tally.latencies.push(...answers.latencies);
    tally.errors += answers.errors;
    tally.seconds += answers.seconds;
    tally.cpuSeconds += (cpu.user + cpu.system) / 1e6;
  };
  for (const name of new Set(arg.order)) await slice(name, arg.warmupSeconds, false);
  for (const name of arg.order) await slice(name, arg.sliceSeconds, true);
  return Object.fromEntries(
    Object.entries(tallies).map(([name, { latencies, errors, warmupAnswered, seconds, cpuSeconds }]) => [
      name,
      {
        seconds,
        answered: latencies.length,
        warmupAnswered,
        perSecond: latencies.length / seconds,
        latencyMs: distribution(latencies),
        errorCount: errors,
        generatorCpu: cpuSeconds / seconds,
      },
    ]),
  );
}

export type PollResult = Awaited<ReturnType<typeof poll>>;
export type SaturateResult = Awaited<ReturnType<typeof saturate>>[string];

serveRequests(
  { pid: process.pid },
  { visitors: (list: PolledVisitor[]) => (visitors = list).length, poll, released: (uuid: string) => releasedNow(uuid), saturate },
);
