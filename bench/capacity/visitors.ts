/**
 * The capacity benchmark's visitors, as the waiting page behaves (spec sections 4 and 7;
 * bench/README.md), each process from its own loopback address. The steady polling runs in
 * another process (poller.ts), so that this one reads the frames as they come, as browsers would.
 */
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import WebSocket from 'ws';
import { CHANNELS } from '@waiting-room/streams/contract';
import { preciseNow } from '../stats';
import { Errors, errorKind, queueInfo, request, type PolledVisitor } from './http-client';
import { sendEvent, serveRequests } from './ipc';

const CONFIG_ELEMENT = /<script id="waiting-room-config" type="application\/json">([\s\S]*?)<\/script>/;
const SESSION_COOKIE = /waiting_room_session=[^;,]*/;
/** How the server frames the line's moves: `{"event":"QueueMoved","channel":"App.Queue","data":"{\"served\":123}"}`. */
const MOVED_PREFIX = JSON.stringify({ event: CHANNELS.movedEvent, channel: CHANNELS.queue }).slice(0, -1) + ',"data":';
const MOVED_SERVED = /\\"served\\":(\d+)/;

/** `heard`: the `QueueMoved` frames read since the last `moves`, [served, read at]; `highest`: the largest `served` it ever heard. */
type Visitor = PolledVisitor & {
  index: number;
  server: URL;
  ws?: WebSocket;
  heard: [number, number][];
  highest: number;
  released: boolean;
  receivedAt?: number;
};

/** Give up after `maxErrors` failed visitors; `realtime` false: only held (the GET with its cookie, one queue_info), all queue_info needs. */
export type HoldArg = { more: number; concurrency: number; maxErrors: number; realtime: boolean };

const targets = (process.env.BENCH_TARGETS ?? '').split(',').map((url) => new URL(url));
const localAddress = process.env.BENCH_SOURCE_ADDRESS || undefined;
const visitors: Visitor[] = [];
/** Errors of the held visitors' lives: their sockets, replays and the release frames. */
const lifeErrors = new Errors();
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
let closing = false;
/** The next visitor's number, in its held URI so that each held request differs. */
let nextIndex = Number(process.env.BENCH_INDEX_BASE ?? 0);
const replayAgent = new http.Agent({ keepAlive: true, maxSockets: 32, localAddress });

/** Holds `more` visitors, `concurrency` arriving at a time. */
async function hold(arg: HoldArg) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: arg.concurrency, localAddress });
  const errors = new Errors();
  const [before, target] = [visitors.length, visitors.length + arg.more];
  let inFlight = 0;
  // A lane whose arrival was admitted rather than held goes on: exactly the number asked is held.
  const lane = async () => {
    for (; visitors.length + inFlight < target && errors.total < arg.maxErrors; inFlight--) {
      inFlight++;
      const visitor = await arrive(agent, nextIndex++, arg.realtime).catch((error: unknown) => void errors.add(`hold: ${errorKind(error)}`, String(error)));
      if (visitor) visitors.push(visitor);
    }
  };
  await Promise.all(Array.from({ length: arg.concurrency }, lane));
  agent.destroy();
  return { held: visitors.length - before, errors: errors.counts, errorCount: errors.total };
}

/** One visitor's arrival: held (subscribed and listening when `realtime`), or admitted at once (undefined). */
async function arrive(agent: http.Agent, index: number, realtime: boolean): Promise<Visitor | undefined> {
  const server = targets[index % targets.length];
  const page = await request(agent, server, 'GET', `/checkout?item=${index}`, { accept: 'text/html' });
  if (page.status !== 200) throw new Error(`GET /checkout answered ${page.status}`);
  const configText = CONFIG_ELEMENT.exec(page.body)?.[1];
  if (configText === undefined) return undefined;
  const config = JSON.parse(configText) as { queue: { uuid: string }; csrfToken: string; realtime: { key: string; port: number } };
  const cookie = SESSION_COOKIE.exec(String(page.headers['set-cookie']))?.[0];
  if (!cookie) throw new Error('the held page set no session cookie');
  const visitor: Visitor = { index, server, cookie, uuid: config.queue.uuid, target: server.origin, heard: [], highest: 0, released: false };
  if (realtime) {
    await subscribe(visitor, config.realtime);
    const body = JSON.stringify({ _token: config.csrfToken, user_id: 0, uuid: visitor.uuid });
    const headers = { cookie, 'content-type': 'application/json', accept: 'application/json' };
    const listening = await request(agent, server, 'POST', '/queue/request', headers, body);
    if (listening.status !== 202) throw new Error(`queue_request answered ${listening.status}: ${listening.body}`);
  }
  const info = await queueInfo(agent, server, visitor);
  if (info.status !== 200) throw new Error(`queue_info answered ${info.status}: ${info.body}`);
  return visitor;
}

/** Connects to the realtime server as pusher-js does and subscribes to the visitor's channel and the line's. */
function subscribe(visitor: Visitor, realtime: { key: string; port: number }): Promise<void> {
  const channel = CHANNELS.client(visitor.uuid);
  const url = `ws://${visitor.server.hostname}:${realtime.port}/app/${realtime.key}?protocol=7&client=js&version=8.6.0&flash=false`;
  return new Promise((resolve, reject) => {
    // Validating each frame's UTF-8 would be the load generator's cost, not the server's.
    const ws = new WebSocket(url, { perMessageDeflate: false, localAddress, skipUTF8Validation: true });
    visitor.ws = ws;
    let subscriptions = 0;
    ws.on('message', (raw) => {
      const text = raw.toString();
      // The line's moves come to every socket, every second: read without parsing the whole frame.
      if (text.startsWith(MOVED_PREFIX)) return moved(visitor, Number(MOVED_SERVED.exec(text)?.[1] ?? Number.NaN));
      const message = JSON.parse(text) as { event: string; channel?: string; data?: unknown };
      if (message.event === 'pusher:connection_established') {
        ws.send(JSON.stringify({ event: 'pusher:subscribe', data: { auth: '', channel } }));
        ws.send(JSON.stringify({ event: 'pusher:subscribe', data: { channel: CHANNELS.queue } }));
      } else if (message.event === 'pusher_internal:subscription_succeeded') {
        if (++subscriptions === 2) resolve();
      } else if (message.event === 'pusher:ping') ws.send(JSON.stringify({ event: 'pusher:pong', data: {} }));
      else if (message.event === CHANNELS.releaseEvent && message.channel === channel) released(visitor, message.data);
      else {
        lifeErrors.add(`realtime: unexpected ${message.event} on ${message.channel}`, text);
        reject(new Error(`realtime answered ${text}`));
      }
    });
    ws.on('error', (error) => {
      lifeErrors.add(`realtime: ${errorKind(error)}`, String(error));
      reject(error);
    });
    ws.on('close', (code) => {
      if (!visitor.released && !closing) lifeErrors.add(`realtime: closed with ${code} while waiting`);
      reject(new Error(`realtime closed with ${code}`));
    });
  });
}

/** The release event: note its arrival, replay the held GET, leave. */
function released(visitor: Visitor, data: unknown): void {
  const receivedAt = preciseNow();
  if (visitor.released) return lifeErrors.add('release: twice');
  if (!String(data).includes(visitor.uuid)) return lifeErrors.add('release: wrong or missing uuid', String(data));
  visitor.released = true;
  visitor.receivedAt = receivedAt;
  // Its page goes away: the poller stops polling it.
  sendEvent('released', visitor.uuid);
  request(replayAgent, visitor.server, 'GET', `/checkout?item=${visitor.index}`, { cookie: visitor.cookie, accept: 'text/html' })
    .then((page) => {
      if (page.status !== 200) lifeErrors.add(`replay: status ${page.status}`, page.body);
      else if (CONFIG_ELEMENT.test(page.body)) lifeErrors.add('replay: held again after release');
    })
    .catch((error: unknown) => lifeErrors.add(`replay: ${errorKind(error)}`, String(error)))
    .finally(() => visitor.ws?.close(1000));
}

/** A `QueueMoved` frame: a page keeps the largest `served` it heard, so a smaller one after it is a server's fault. */
function moved(visitor: Visitor, served: number): void {
  const readAt = preciseNow();
  if (!Number.isFinite(served)) return lifeErrors.add('moved: wrong or missing served');
  if (served <= visitor.highest) lifeErrors.add('moved: not newer than one heard before', `${served} after ${visitor.highest}`);
  visitor.highest = Math.max(visitor.highest, served);
  visitor.heard.push([served, readAt]);
}

const listening = () => visitors.filter((visitor) => !visitor.released && visitor.ws?.readyState === WebSocket.OPEN);

/**
 * The moves read since the last call, joined with the batches decided meanwhile ([served, decided
 * at]). The server may skip a move a newer one made pointless, so a batch has reached a socket when
 * a move carrying its `served` or more did. Batches decided before `countedFrom` (the warm-up) are
 * left out of the latency. A visitor still listening that never heard the last batch missed it.
 */
function moves({ batches, countedFrom }: { batches: [number, number][]; countedFrom: number }) {
  const latencies: number[] = [];
  const perBatch: [served: number, sockets: number][] = [];
  for (const [served, decidedAt] of batches) {
    if (decidedAt < countedFrom) continue;
    let reached = 0;
    for (const visitor of visitors) {
      const first = visitor.heard.find(([carried]) => carried >= served);
      if (first) latencies.push(Math.round((first[1] - decidedAt) * 100) / 100);
      if (first) reached++;
    }
    perBatch.push([served, reached]);
  }
  const latest = batches.reduce((top, [served]) => Math.max(top, served), 0);
  for (const visitor of visitors) visitor.heard = [];
  return { latencies, perBatch, missedByWaiting: listening().filter((visitor) => visitor.highest < latest).length };
}

/** Release frames as they arrived ([uuid, read at]), and how the visitors fared; the event-loop delay since the last call. */
function deliveries() {
  const loopDelayMaxMs = loopDelay.max / 1e6;
  loopDelay.reset();
  const received = visitors.filter((visitor) => visitor.receivedAt !== undefined).map((visitor): [string, number] => [visitor.uuid, visitor.receivedAt!]);
  return { received, errors: lifeErrors.counts, errorCount: lifeErrors.total, loopDelayMaxMs };
}

export type HoldResult = Awaited<ReturnType<typeof hold>>;
export type Deliveries = ReturnType<typeof deliveries>;
export type MoveShare = ReturnType<typeof moves>;

serveRequests(
  { pid: process.pid },
  {
    hold,
    /** The waiting visitors, for the poller. */
    visitors: (): PolledVisitor[] => visitors.filter((visitor) => !visitor.released).map(({ uuid, cookie, target }) => ({ uuid, cookie, target })),
    deliveries,
    moves,
    lagging: (served: number) => listening().filter((visitor) => visitor.highest < served).length,
    close: () => {
      closing = true;
      for (const visitor of visitors) visitor.ws?.terminate();
      replayAgent.destroy();
    },
  },
);
