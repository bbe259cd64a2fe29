/**
 * The capacity benchmark's visitors, in their own process. Each anonymous visitor behaves as
 * the waiting page does (spec sections 4 and 7): it is first held by the real server (a GET of
 * a protected page with its own cookie jar, the uuid read from the page config element),
 * connects over the Pusher protocol 7 and subscribes to `App.Client.{uuid}` and to the line-wide
 * `App.Queue`, sends queue_request once subscribed, and polls queue_info once. On `RequestUnqueud`
 * it records the frame's arrival, replays the held GET and goes away, as the page does; each
 * `QueueMoved` (one per release batch, to every socket) has its arrival noted too.
 *
 * The steady queue_info polling runs in another process (poller.ts), so that this one reads the
 * release frames as soon as they come, as thousands of separate browsers would. Several of these
 * processes may share the visitors (`visitor-group.ts`), each reading its own share of the sockets:
 * `BENCH_TARGETS` lists the servers (a visitor stays with one, taken in turn, as a load balancer
 * spreads them), `BENCH_SOURCE_ADDRESS` is the loopback address its sockets come from (each has
 * its own range of ports).
 *
 * Requests from the orchestrator: `hold`, `visitors`, `deliveries`, `moves`, `close`.
 */
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import WebSocket from 'ws';
import { CHANNELS } from '@waiting-room/streams/contract';
import { distribution, preciseNow } from '../stats';
import { Errors, errorKind, lanes, queueInfo, request, type PolledVisitor } from './http-client';
import { sendEvent, serveRequests } from './ipc';

const CONFIG_ELEMENT = /<script id="waiting-room-config" type="application\/json">([\s\S]*?)<\/script>/;
const SESSION_COOKIE = /^(waiting_room_session=[^;]*)/;
/** How the server frames the line's moves: `{"event":"QueueMoved","channel":"App.Queue","data":"{\"served\":123}"}`. */
const MOVED_PREFIX = JSON.stringify({ event: CHANNELS.movedEvent, channel: CHANNELS.queue }).slice(0, -1) + ',"data":';
const MOVED_SERVED = /\\"served\\":(\d+)/;

interface Visitor extends PolledVisitor {
  readonly index: number;
  /** The server this visitor was held by, and talks to. */
  readonly server: URL;
  readonly csrfToken: string;
  ws?: WebSocket;
  subscribed: boolean;
  /** Channels whose subscription succeeded, of the two. */
  subscriptions: number;
  /** `QueueMoved` frames received since the last `moves` request: [served, read at]. */
  heard: [number, number][];
  /** The largest `served` this visitor ever heard. */
  highest: number;
  released: boolean;
  receivedAt?: number;
}

const targets = (process.env.BENCH_TARGETS ?? process.env.BENCH_TARGET ?? 'http://127.0.0.1:8080').split(',').map((url) => new URL(url));
const localAddress = process.env.BENCH_SOURCE_ADDRESS || undefined;
const visitors: Visitor[] = [];
/** Errors of the held visitors' lives: their sockets, replays and the release frames. */
const lifeErrors = new Errors();
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
let duplicateReleases = 0;
let unexpectedCloses = 0;
let replays = 0;
let closing = false;
/** The next visitor's number, used in its held URI so that each held request differs. */
let nextIndex = Number(process.env.BENCH_INDEX_BASE ?? 0);
let replayAgent: http.Agent | undefined;
let moveFrames = 0;

interface HoldArg {
  readonly visitors: number;
  readonly concurrency: number;
  /** Give up after this many failed visitors. */
  readonly maxErrors: number;
  /**
   * false: each visitor is only held (the GET with its cookie, one queue_info), with no WebSocket
   * and no queue_request: all queue_info needs to answer a position. Default true.
   */
  readonly realtime?: boolean;
}

/** Makes visitors until `visitors` have been held by this process (the released ones included), each subscribed, listening and polled once. */
async function hold(arg: HoldArg) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: arg.concurrency, localAddress });
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
      const visitor = await arrive(agent, index, holdMs, arg.realtime ?? true);
      if (visitor) visitors.push(visitor);
      else admitted++;
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
    /** Each hold's latency, to put several processes' together. */
    holdSamplesMs: holdMs.map((ms) => Math.round(ms * 100) / 100),
    errors: errors.snapshot(),
    errorCount: errors.total,
  };
}

/** One visitor's arrival: held (returns the visitor, subscribed and listening when `realtime`) or admitted (undefined). */
async function arrive(agent: http.Agent, index: number, holdMs: number[], realtime: boolean): Promise<Visitor | undefined> {
  const target = targets[index % targets.length];
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
  const visitor: Visitor = {
    index,
    server: target,
    cookie,
    uuid: config.queue.uuid,
    csrfToken: config.csrfToken,
    subscribed: false,
    subscriptions: 0,
    heard: [],
    highest: 0,
    released: false,
  };
  if (realtime) await listen(agent, visitor, config.realtime);
  const info = await queueInfo(agent, target, visitor);
  if (info.status !== 200) throw new Error(`queue_info answered ${info.status}: ${info.body}`);
  return visitor;
}

/** Subscribes as the page does, then queue_request: "I am listening". */
async function listen(agent: http.Agent, visitor: Visitor, realtime: { key: string; host: string; port: number }): Promise<void> {
  await subscribe(visitor, realtime);
  const listening = await request(
    agent,
    visitor.server,
    'POST',
    '/queue/request',
    { cookie: visitor.cookie, 'content-type': 'application/json', accept: 'application/json' },
    JSON.stringify({ _token: visitor.csrfToken, user_id: 0, uuid: visitor.uuid }),
  );
  if (listening.status !== 202) throw new Error(`queue_request answered ${listening.status}: ${listening.body}`);
}

/** Connects to the realtime server as pusher-js does and subscribes to the visitor's channel and the line's. */
function subscribe(visitor: Visitor, realtime: { key: string; host: string; port: number }): Promise<void> {
  const channel = CHANNELS.client(visitor.uuid);
  const url = `ws://${visitor.server.hostname}:${realtime.port}/app/${realtime.key}?protocol=7&client=js&version=8.6.0&flash=false`;
  return new Promise((resolve, reject) => {
    // The server's frames are checked by what reads them; validating each one's UTF-8 too would be
    // the load generator's cost, not the server's.
    const ws = new WebSocket(url, { perMessageDeflate: false, localAddress, skipUTF8Validation: true });
    visitor.ws = ws;
    ws.on('message', (raw) => {
      const text = raw.toString();
      // The line's moves come to every socket, every second: read them without parsing the whole frame.
      if (text.startsWith(MOVED_PREFIX)) return moved(visitor, MOVED_SERVED.exec(text)?.[1]);
      const message = JSON.parse(text) as { event: string; channel?: string; data?: unknown };
      switch (message.event) {
        case 'pusher:connection_established':
          ws.send(JSON.stringify({ event: 'pusher:subscribe', data: { auth: '', channel } }));
          ws.send(JSON.stringify({ event: 'pusher:subscribe', data: { channel: CHANNELS.queue } }));
          return;
        case 'pusher_internal:subscription_succeeded':
          if (++visitor.subscriptions < 2) return;
          visitor.subscribed = true;
          resolve();
          return;
        case 'pusher:ping':
          ws.send(JSON.stringify({ event: 'pusher:pong', data: {} }));
          return;
        case CHANNELS.releaseEvent:
          released(visitor, message.channel === channel ? message.data : undefined);
          return;
        case CHANNELS.movedEvent:
          // Every move on App.Queue took the path above.
          lifeErrors.add('moved: on the wrong channel, or framed otherwise', text);
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

/** The release event: record its arrival, replay the held GET, leave. */
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
  // Its page goes away: the poller stops polling it.
  sendEvent('released', visitor.uuid);
  replayAgent ??= new http.Agent({ keepAlive: true, maxSockets: 32, localAddress });
  request(replayAgent, visitor.server, 'GET', `/checkout?item=${visitor.index}`, { cookie: visitor.cookie, accept: 'text/html' })
    .then((page) => {
      if (page.status !== 200) lifeErrors.add(`replay: status ${page.status}`, page.body);
      else if (CONFIG_ELEMENT.test(page.body)) lifeErrors.add('replay: held again after release');
      else replays++;
    })
    .catch((error: unknown) => lifeErrors.add(`replay: ${errorKind(error)}`, String(error)))
    .finally(() => visitor.ws?.close(1000));
}

/** A `QueueMoved` frame: note when it arrived, and what it carried (its `served`, as text). */
function moved(visitor: Visitor, servedText: string | undefined): void {
  const receivedAt = preciseNow();
  const served = Number(servedText ?? Number.NaN);
  if (!Number.isFinite(served)) {
    lifeErrors.add('moved: wrong or missing served', String(servedText));
    return;
  }
  // A page keeps the largest `served` it heard: a smaller one after it would be a server's fault.
  if (served <= visitor.highest) lifeErrors.add('moved: not newer than one heard before', `${served} after ${visitor.highest}`);
  visitor.highest = Math.max(visitor.highest, served);
  visitor.heard.push([served, receivedAt]);
  moveFrames++;
}

/** [served, decided at, handed to the server's sockets at] of one release batch (from the server). */
export type MoveBatch = [number, number, number | undefined];

interface MovesArg {
  /** Every batch the server decided since the last call. */
  readonly batches: readonly MoveBatch[];
  /** Batches decided before this (the warm-up) must arrive, but are left out of the latency. */
  readonly countedFrom: number;
}

/**
 * The `QueueMoved` frames since the last call, joined with the batches the server decided
 * meanwhile. A page keeps the largest `served` it heard, and the server may skip a move a newer
 * one made pointless, so a batch has reached a socket when a move carrying its `served` or more
 * did: its delivery is from the decision to that read, at each socket. A visitor still waiting
 * that never heard the last batch's `served` (or more) missed the line's move. Forgets what it
 * counted. The latencies come back whole, so that the shares of several visitor processes can be
 * put together.
 */
function moves({ batches, countedFrom }: MovesArg) {
  /** Decision of the batch → a move carrying it read at each socket. */
  const latencies: number[] = [];
  /** Handed to the server's sockets → read by this process. */
  const toVisitor: number[] = [];
  /** Per counted batch: [served, sockets it reached here, the last one's latency]. */
  const perBatch: [number, number, number][] = [];
  const round = (value: number) => Math.round(value * 100) / 100;
  for (const [served, decidedAt, handedAt] of batches) {
    if (decidedAt < countedFrom) continue;
    let reached = 0;
    let last = Number.NaN;
    for (const visitor of visitors) {
      const first = visitor.heard.find(([carried]) => carried >= served);
      if (!first) continue;
      reached++;
      const latency = round(first[1] - decidedAt);
      latencies.push(latency);
      last = Number.isNaN(last) ? latency : Math.max(last, latency);
      if (handedAt !== undefined) toVisitor.push(round(first[1] - handedAt));
    }
    perBatch.push([served, reached, last]);
  }
  const latest = batches.reduce((top, [served]) => Math.max(top, served), 0);
  const waiting = visitors.filter((visitor) => !visitor.released && visitor.ws?.readyState === WebSocket.OPEN);
  const missedByWaiting = waiting.filter((visitor) => visitor.highest < latest).length;
  const figures = {
    batches: batches.length,
    /** Every QueueMoved frame read since the last call, the warm-up's included. */
    frames: moveFrames,
    perBatch,
    waitingSockets: waiting.length,
    /** Visitors still waiting (socket open) that never heard the line's last move. */
    missedByWaiting,
    latencies,
    toVisitor,
  };
  moveFrames = 0;
  for (const visitor of visitors) visitor.heard = [];
  return figures;
}

/** Release frames as they arrived (uuid → ms since the epoch), and how the visitors fared. */
function deliveries() {
  const figures = {
    received: visitors.filter((visitor) => visitor.receivedAt !== undefined).map((visitor) => [visitor.uuid, visitor.receivedAt!] as [string, number]),
    openSockets: visitors.filter((visitor) => visitor.ws?.readyState === WebSocket.OPEN).length,
    waiting: visitors.filter((visitor) => !visitor.released).length,
    replays,
    duplicateReleases,
    unexpectedCloses,
    errors: lifeErrors.snapshot(),
    errorCount: lifeErrors.total,
    /** This process's event-loop delay since the last call: a late frame may be this process's fault. */
    loopDelayMs: { p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 },
  };
  loopDelay.reset();
  return figures;
}

export type HoldResult = Awaited<ReturnType<typeof hold>>;
export type Deliveries = ReturnType<typeof deliveries>;
export type MoveShare = ReturnType<typeof moves>;

serveRequests(
  { pid: process.pid },
  {
    hold: (arg: HoldArg) => hold(arg),
    /** The waiting visitors, for the poller. */
    visitors: (): PolledVisitor[] =>
      visitors.filter((visitor) => !visitor.released).map(({ uuid, cookie, server }) => ({ uuid, cookie, target: server.origin })),
    deliveries: () => deliveries(),
    moves: (arg: MovesArg) => moves(arg),
    lagging: (served: number) =>
      visitors.filter((visitor) => !visitor.released && visitor.ws?.readyState === WebSocket.OPEN && visitor.highest < served).length,
    close: () => {
      closing = true;
      for (const visitor of visitors) visitor.ws?.terminate();
      replayAgent?.destroy();
    },
  },
);
