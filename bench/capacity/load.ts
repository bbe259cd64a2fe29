/**
 * The capacity benchmark's load generator, in its own process. It simulates anonymous visitors
 * as the waiting page behaves (spec sections 4 and 7): each is first held by the real server
 * (a GET of a protected page with its own cookie jar, the uuid read from the page config
 * element), connects over the Pusher protocol 7 and subscribes to `App.Client.{uuid}`, sends
 * queue_request once subscribed, and polls queue_info (every 5 s and every 60 s, divided by a
 * time-compression factor). On `RequestUnqueud` it records the arrival time, replays the held
 * GET and goes away, as the page does.
 *
 * The orchestrator drives it by requests: `hold`, `poll`, `saturate`, `deliveries`, `close`.
 */
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import WebSocket from 'ws';
import { distribution, preciseNow } from '../stats';
import { serveRequests } from './ipc';

/** The page's poll periods (spec section 9), before time compression. */
const ANONYMOUS_POLL_MS = 5_000;
const EVERYONE_POLL_MS = 60_000;
const CONFIG_ELEMENT = /<script id="waiting-room-config" type="application\/json">([\s\S]*?)<\/script>/;
const SESSION_COOKIE = /^(waiting_room_session=[^;]*)/;

interface Visitor {
  readonly index: number;
  readonly cookie: string;
  readonly uuid: string;
  readonly csrfToken: string;
  ws?: WebSocket;
  subscribed: boolean;
  released: boolean;
  receivedAt?: number;
  timers: NodeJS.Timeout[];
}

interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  readonly ms: number;
}

/** Counts errors by kind, keeping one example of each. */
class Errors {
  readonly counts = new Map<string, { count: number; example: string }>();
  add(kind: string, example = ''): void {
    const known = this.counts.get(kind);
    if (known) known.count++;
    else this.counts.set(kind, { count: 1, example: example.slice(0, 300) });
  }
  get total(): number {
    let sum = 0;
    for (const { count } of this.counts.values()) sum += count;
    return sum;
  }
  snapshot(): Record<string, { count: number; example: string }> {
    return Object.fromEntries(this.counts);
  }
}

const target = new URL(process.env.BENCH_TARGET ?? 'http://127.0.0.1:8080');
const visitors: Visitor[] = [];
/** Errors of the held visitors' lives: their sockets, replays and the release frames. */
const lifeErrors = new Errors();
let duplicateReleases = 0;
let unexpectedCloses = 0;
let closing = false;
/** The next visitor's number, used in its held URI so each held request differs. */
let nextIndex = 0;

function request(
  agent: http.Agent,
  base: URL,
  method: string,
  path: string,
  headers: http.OutgoingHttpHeaders = {},
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const outgoing = http.request(
      { host: base.hostname, port: base.port, method, path, agent, headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString(), ms: performance.now() - started }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const errorKind = (error: unknown): string => (error as NodeJS.ErrnoException)?.code ?? (error as Error)?.message ?? String(error);

/** Runs `worker` on `concurrency` lanes until it returns false. */
async function lanes(concurrency: number, worker: () => Promise<boolean>): Promise<void> {
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (await worker()) {
        // next
      }
    }),
  );
}

// ---------------------------------------------------------------- hold

interface HoldArg {
  readonly visitors: number;
  readonly concurrency: number;
  /** Give up after this many failed visitors. */
  readonly maxErrors: number;
}

/** Makes visitors until `visitors` are held, each subscribed, listening and polled once. */
async function hold(arg: HoldArg) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: arg.concurrency });
  const errors = new Errors();
  const started = performance.now();
  const holdMs: number[] = [];
  let admitted = 0;
  const firstIndex = nextIndex;
  let inFlight = 0;
  await lanes(arg.concurrency, async () => {
    if (visitors.length >= arg.visitors || errors.total >= arg.maxErrors) return false;
    // Hold exactly the number asked: wait while the arrivals under way may be enough.
    if (visitors.length + inFlight >= arg.visitors) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return true;
    }
    const index = nextIndex++;
    inFlight++;
    try {
      const visitor = await arrive(agent, index, holdMs);
      if (visitor) {
        visitors.push(visitor);
      } else admitted++;
    } catch (error) {
      errors.add(`hold: ${errorKind(error)}`, String((error as Error)?.message ?? error));
    } finally {
      inFlight--;
    }
    return true;
  });
  agent.destroy();
  return {
    held: visitors.length,
    admitted,
    attempts: nextIndex - firstIndex,
    seconds: (performance.now() - started) / 1000,
    holdLatencyMs: distribution(holdMs),
    errors: errors.snapshot(),
    errorCount: errors.total,
  };
}

/** One visitor's arrival: held (returns the visitor, subscribed and listening) or admitted (undefined). */
async function arrive(agent: http.Agent, index: number, holdMs: number[]): Promise<Visitor | undefined> {
  const page = await request(agent, target, 'GET', `/checkout?item=${index}`, { accept: 'text/html' });
  if (page.status !== 200) throw new Error(`GET /checkout answered ${page.status}`);
  const configText = CONFIG_ELEMENT.exec(page.body)?.[1];
  if (configText === undefined) return undefined;
  holdMs.push(page.ms);
  const config = JSON.parse(configText) as {
    queue: { uuid: string };
    csrfToken: string;
    realtime: { key: string; host: string; port: number };
  };
  const setCookie = [page.headers['set-cookie'] ?? []].flat();
  const cookie = setCookie.map((line) => SESSION_COOKIE.exec(line)?.[1]).find(Boolean);
  if (!cookie) throw new Error('the held page set no session cookie');
  const visitor: Visitor = { index, cookie, uuid: config.queue.uuid, csrfToken: config.csrfToken, subscribed: false, released: false, timers: [] };
  await subscribe(visitor, config.realtime);
  const listening = await request(
    agent,
    target,
    'POST',
    '/queue/request',
    { cookie, 'content-type': 'application/json', accept: 'application/json' },
    JSON.stringify({ _token: visitor.csrfToken, user_id: 0, uuid: visitor.uuid }),
  );
  if (listening.status !== 202) throw new Error(`queue_request answered ${listening.status}: ${listening.body}`);
  const info = await queueInfo(agent, visitor);
  if (info.status !== 200) throw new Error(`queue_info answered ${info.status}: ${info.body}`);
  return visitor;
}

/** Connects to the realtime server as pusher-js does and subscribes to the visitor's channel. */
function subscribe(visitor: Visitor, realtime: { key: string; host: string; port: number }): Promise<void> {
  const channel = `App.Client.${visitor.uuid}`;
  const url = `ws://${target.hostname}:${realtime.port}/app/${realtime.key}?protocol=7&client=js&version=8.6.0&flash=false`;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    visitor.ws = ws;
    ws.on('message', (raw) => {
      const message = JSON.parse(raw.toString()) as { event: string; channel?: string; data?: unknown };
      switch (message.event) {
        case 'pusher:connection_established':
          ws.send(JSON.stringify({ event: 'pusher:subscribe', data: { auth: '', channel } }));
          return;
        case 'pusher_internal:subscription_succeeded':
          visitor.subscribed = true;
          resolve();
          return;
        case 'pusher:ping':
          ws.send(JSON.stringify({ event: 'pusher:pong', data: {} }));
          return;
        case 'RequestUnqueud':
          released(visitor, message.channel === channel ? message.data : undefined);
          return;
        default:
          lifeErrors.add(`realtime: unexpected ${message.event}`, raw.toString());
          if (!visitor.subscribed) reject(new Error(`realtime answered ${raw.toString()}`));
      }
    });
    ws.on('error', (error) => {
      lifeErrors.add(`realtime: ${errorKind(error)}`, String(error));
      reject(error);
    });
    ws.on('close', (code) => {
      if (!visitor.released && !closing) {
        unexpectedCloses++;
        lifeErrors.add(`realtime: closed with ${code} while waiting`);
      }
      if (!visitor.subscribed) reject(new Error(`realtime closed with ${code} before the subscription`));
    });
  });
}

function queueInfo(agent: http.Agent, visitor: Visitor, base = target): Promise<Answer> {
  return request(agent, base, 'GET', `/queue/info/${visitor.uuid}`, { cookie: visitor.cookie, accept: 'application/json' });
}

// ---------------------------------------------------------------- release

let replayAgent: http.Agent | undefined;
let replays = 0;

/** The release event: record its arrival, stop polling, replay the held GET, leave. */
function released(visitor: Visitor, data: unknown): void {
  const receivedAt = preciseNow();
  if (visitor.released) {
    duplicateReleases++;
    return;
  }
  let uuid: unknown;
  try {
    uuid = (JSON.parse(String(data)) as { uuid?: unknown }).uuid;
  } catch {
    uuid = undefined;
  }
  if (uuid !== visitor.uuid) {
    lifeErrors.add('release: wrong or missing uuid', String(data));
    return;
  }
  visitor.released = true;
  visitor.receivedAt = receivedAt;
  for (const timer of visitor.timers) clearInterval(timer);
  visitor.timers = [];
  replayAgent ??= new http.Agent({ keepAlive: true, maxSockets: 32 });
  request(replayAgent, target, 'GET', `/checkout?item=${visitor.index}`, { cookie: visitor.cookie, accept: 'text/html' })
    .then((page) => {
      if (page.status !== 200) lifeErrors.add(`replay: status ${page.status}`, page.body);
      else if (CONFIG_ELEMENT.test(page.body)) lifeErrors.add('replay: held again after release');
      else replays++;
    })
    .catch((error: unknown) => lifeErrors.add(`replay: ${errorKind(error)}`, String(error)))
    .finally(() => visitor.ws?.close(1000));
}

// ---------------------------------------------------------------- paced polling

interface PollArg {
  readonly seconds: number;
  /** Time compression: 2 polls twice as often as the page does. */
  readonly factor: number;
  readonly sockets: number;
}

/** Polls queue_info for every waiting visitor at the page's pace (compressed) for `seconds`. */
async function poll(arg: PollArg) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: arg.sockets });
  const stats = { latencies: [] as number[], errors: new Errors() };
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let sent = 0;
  const one = (visitor: Visitor) => {
    if (visitor.released) return;
    sent++;
    queueInfo(agent, visitor).then(
      (answer) => {
        if (answer.status === 200) stats.latencies.push(answer.ms);
        else stats.errors.add(`queue_info: status ${answer.status}`, answer.body);
      },
      (error: unknown) => stats.errors.add(`queue_info: ${errorKind(error)}`, String(error)),
    );
  };
  const waiting = visitors.filter((visitor) => !visitor.released);
  for (const visitor of waiting) {
    for (const period of [ANONYMOUS_POLL_MS / arg.factor, EVERYONE_POLL_MS / arg.factor]) {
      // A random phase, as visitors arrive at random times.
      const timer = setTimeout(() => {
        one(visitor);
        if (!visitor.released) visitor.timers.push(setInterval(() => one(visitor), period));
      }, Math.random() * period);
      visitor.timers.push(timer);
    }
  }
  await new Promise((resolve) => setTimeout(resolve, arg.seconds * 1000));
  for (const visitor of visitors) {
    for (const timer of visitor.timers) clearInterval(timer);
    visitor.timers = [];
  }
  const elapsed = (performance.now() - started) / 1000;
  // Let the last answers come in before counting.
  const settleUntil = performance.now() + 5000;
  while (stats.latencies.length + stats.errors.total < sent && performance.now() < settleUntil) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  delay.disable();
  const cpu = process.cpuUsage(cpuBefore);
  agent.destroy();
  const offered = waiting.length * (arg.factor * 1000) * (1 / ANONYMOUS_POLL_MS + 1 / EVERYONE_POLL_MS);
  return {
    visitors: waiting.length,
    seconds: elapsed,
    offeredPerSecond: offered,
    sent,
    answered: stats.latencies.length,
    perSecond: stats.latencies.length / elapsed,
    latencyMs: distribution(stats.latencies),
    errors: stats.errors.snapshot(),
    errorCount: stats.errors.total,
    unanswered: sent - stats.latencies.length - stats.errors.total,
    generatorCpu: (cpu.user + cpu.system) / 1e6 / elapsed,
    generatorLoopDelayP99Ms: delay.percentile(99) / 1e6,
  };
}

// ---------------------------------------------------------------- saturation

interface SaturateArg {
  /** Base URL: our server or the bare one. */
  readonly url: string;
  readonly connections: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
}

/**
 * Closed loop: `connections` keep-alive connections each send the next waiting visitor's
 * queue_info as soon as the previous answer is in. Answers during the warm-up are not counted.
 */
async function saturate(arg: SaturateArg) {
  const base = new URL(arg.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: arg.connections });
  const errors = new Errors();
  const latencies: number[] = [];
  const waiting = visitors.filter((visitor) => !visitor.released);
  if (waiting.length === 0) throw new Error('no waiting visitor to poll');
  let next = 0;
  let counting = false;
  let countStart = 0;
  let cpuBefore = process.cpuUsage();
  const end = performance.now() + (arg.warmupSeconds + arg.seconds) * 1000;
  setTimeout(() => {
    counting = true;
    countStart = performance.now();
    cpuBefore = process.cpuUsage();
  }, arg.warmupSeconds * 1000);
  await lanes(arg.connections, async () => {
    if (performance.now() >= end) return false;
    const visitor = waiting[next++ % waiting.length];
    const wasCounting = counting;
    try {
      const answer = await queueInfo(agent, visitor, base);
      if (!wasCounting) return true;
      if (answer.status === 200) latencies.push(answer.ms);
      else errors.add(`queue_info: status ${answer.status}`, answer.body);
    } catch (error) {
      if (wasCounting) errors.add(`queue_info: ${errorKind(error)}`, String(error));
    }
    return true;
  });
  const elapsed = (performance.now() - countStart) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  agent.destroy();
  return {
    url: arg.url,
    connections: arg.connections,
    seconds: elapsed,
    answered: latencies.length,
    perSecond: latencies.length / elapsed,
    latencyMs: distribution(latencies),
    errors: errors.snapshot(),
    errorCount: errors.total,
    generatorCpu: (cpu.user + cpu.system) / 1e6 / elapsed,
  };
}

// ---------------------------------------------------------------- results

/** Release frames as they arrived (uuid → ms since the epoch), and the visitors' lives. */
function deliveries() {
  return {
    received: visitors.filter((visitor) => visitor.receivedAt !== undefined).map((visitor) => [visitor.uuid, visitor.receivedAt] as const),
    openSockets: visitors.filter((visitor) => visitor.ws?.readyState === WebSocket.OPEN).length,
    waiting: visitors.filter((visitor) => !visitor.released).length,
    replays,
    duplicateReleases,
    unexpectedCloses,
    errors: lifeErrors.snapshot(),
    errorCount: lifeErrors.total,
  };
}

async function close(): Promise<void> {
  closing = true;
  for (const visitor of visitors) {
    for (const timer of visitor.timers) clearInterval(timer);
    visitor.ws?.terminate();
  }
  replayAgent?.destroy();
}

export type HoldResult = Awaited<ReturnType<typeof hold>>;
export type PollResult = Awaited<ReturnType<typeof poll>>;
export type SaturateResult = Awaited<ReturnType<typeof saturate>>;
export type Deliveries = ReturnType<typeof deliveries>;

serveRequests(
  { pid: process.pid },
  {
    hold: (arg: HoldArg) => hold(arg),
    poll: (arg: PollArg) => poll(arg),
    saturate: (arg: SaturateArg) => saturate(arg),
    deliveries: () => deliveries(),
    close: () => close(),
  },
);
