/**
 * The admission benchmark's visitors, for every room at once, as API clients (`Accept:
 * application/json`); held, they listen over shared Pusher sockets (docs/adaptive-admission.md).
 */
import { Pool } from 'undici';
import WebSocket from 'ws';
import { CHANNELS } from '@waiting-room/streams/contract';
import { serveRequests } from '../capacity/ipc';
import { distribution, mulberry32, percentile, preciseNow } from '../stats';

type VisitorTarget = { readonly name: string; readonly url: string; readonly realtimeKey: string };
/** `thinkMs` between a visitor's requests and `reactionMs` from the release event to the replay: uniform in [min, max] ms. */
export type VisitorsOptions = { targets: readonly VisitorTarget[]; arrivalsPerSecond: number; lineCap: number; perVisit: number; seed: number } & Paces;
type Paces = Record<'thinkMs' | 'reactionMs', readonly [number, number]>;

const SESSION_COOKIE = /^(waiting_room_session=[^;]*)/;

/** Channels a socket carries at most (the rooms under test allow 1,000). */
const CHANNELS_PER_SOCKET = 900;

type Shared = { readonly ws: WebSocket; channels: number };

/** A few Pusher-protocol sockets that the waiting visitors' channels share: this measures the line, not the realtime server. */
class RealtimeSockets {
  private readonly sockets: Shared[] = [];
  private readonly socketOf = new Map<string, Shared>();

  private constructor(
    private readonly url: string,
    private readonly onRelease: (channel: string) => void,
    private readonly onProblem: (what: string) => void,
  ) {}

  /** Opens enough sockets for `channels` at once on the server at `serverUrl`. */
  static async open(serverUrl: string, realtimeKey: string, channels: number, onRelease: (channel: string) => void, onProblem: (what: string) => void) {
    const url = `ws://${new URL(serverUrl).host}/app/${realtimeKey}?protocol=7&client=js&version=8.6.0&flash=false`;
    const pool = new RealtimeSockets(url, onRelease, onProblem);
    for (let i = 0; i < Math.ceil(channels / CHANNELS_PER_SOCKET); i++) pool.sockets.push(await pool.connect());
    return pool;
  }

  private connect(): Promise<Shared> {
    const ws = new WebSocket(this.url, { perMessageDeflate: false });
    return new Promise((resolve, reject) => {
      ws.on('message', (raw) => {
        const message = JSON.parse(raw.toString()) as { event: string; channel?: string };
        if (message.event === 'pusher:connection_established') resolve({ ws, channels: 0 });
        else if (message.event === 'pusher:ping') ws.send('{"event":"pusher:pong","data":{}}');
        else if (message.event === CHANNELS.releaseEvent && message.channel) this.onRelease(message.channel);
        else if (message.event === 'pusher:error') this.onProblem(`realtime error ${raw.toString().slice(0, 120)}`);
      });
      ws.once('error', reject);
      ws.on('close', (code) => this.onProblem(`a realtime socket closed (${code})`));
    });
  }

  /** Subscribes `channel` on a socket with room for it; false when none has. */
  subscribe(channel: string): boolean {
    const socket = this.sockets.find((one) => one.channels < CHANNELS_PER_SOCKET);
    if (!socket) return false;
    socket.channels++;
    this.socketOf.set(channel, socket);
    socket.ws.send(JSON.stringify({ event: 'pusher:subscribe', data: { auth: '', channel } }));
    return true;
  }

  unsubscribe(channel: string): void {
    const socket = this.socketOf.get(channel);
    if (!socket) return;
    this.socketOf.delete(channel);
    socket.channels--;
    socket.ws.send(JSON.stringify({ event: 'pusher:unsubscribe', data: { channel } }));
  }

  close(): void {
    for (const { ws } of this.sockets) {
      ws.removeAllListeners('close');
      ws.terminate();
    }
  }
}

/** What became of a shopping request: an error is a 5xx or no answer; held, held again mid-visit (it outlasted SESSION_SECONDS). */
type Outcome = 'ok' | 'error' | 'held';

/** `done`: requests of the visit already answered; a visitor held again mid-visit goes on from there. */
type Waiting = { readonly cookie: string; readonly heldAt: number; readonly n: number; readonly done: number };

class Room {
  private readonly pool: Pool;
  private sockets?: RealtimeSockets;
  private readonly waiting = new Map<string, Waiting>();
  private due = 0;
  private next = 0;
  /** Each shopping request: when its answer came, how long it took, what became of it. */
  readonly answeredAt: number[] = [];
  readonly answerMs: number[] = [];
  readonly outcome: Outcome[] = [];
  /** Each release: when it came, and how long the visitor had waited. */
  readonly releasedAt: number[] = [];
  readonly waitedMs: number[] = [];
  readonly arrivedAt: number[] = [];
  readonly problems = new Map<string, number>();
  stopped = false;

  constructor(
    readonly target: VisitorTarget,
    private readonly options: VisitorsOptions,
    private readonly random: () => number,
  ) {
    this.pool = new Pool(target.url, { connections: 1024, pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });
  }

  async open(): Promise<void> {
    const { url, realtimeKey } = this.target;
    const onRelease = (channel: string) => this.released(channel);
    this.sockets = await RealtimeSockets.open(url, realtimeKey, this.options.lineCap + CHANNELS_PER_SOCKET, onRelease, (what) => this.problem(what));
  }

  /** Called every few ms: the arrivals due since, while the line has room. */
  arrive(seconds: number): void {
    this.due += this.options.arrivalsPerSecond * seconds;
    while (this.due >= 1) {
      this.due--;
      if (this.waiting.size >= this.options.lineCap) continue;
      void this.arrival(this.next++);
    }
  }

  private async arrival(n: number): Promise<void> {
    const started = performance.now();
    const arrivedAt = preciseNow();
    this.arrivedAt.push(arrivedAt);
    let status: number;
    let cookie: string | undefined;
    let body: string;
    try {
      const answer = await this.pool.request({ method: 'GET', path: `/shop/item/${n}`, headers: { accept: 'application/json' } });
      status = answer.statusCode;
      const set = [answer.headers['set-cookie'] ?? []].flat();
      cookie = set.map((line) => SESSION_COOKIE.exec(String(line))?.[1]).find(Boolean);
      body = await answer.body.text();
    } catch (error) {
      this.problem(`arrival: ${(error as Error).message}`);
      return;
    }
    if (!cookie) return this.problem(`arrival: no session cookie (status ${status})`);
    if (status === 503) return this.wait(body, cookie, n, 0, arrivedAt);
    // Let in at once: the arrival was the visit's first request.
    this.record(started, status);
    void this.shop(cookie, n, 1, true);
  }

  /** Held (503 with the page's config): listens on its channel until released. */
  private wait(body: string, cookie: string, n: number, done: number, heldAt: number): void {
    let uuid: string | undefined;
    try {
      uuid = (JSON.parse(body) as { queue?: { uuid?: string } }).queue?.uuid;
    } catch {
      uuid = undefined;
    }
    if (!uuid) return this.problem('held without a place');
    const channel = CHANNELS.client(uuid);
    if (!this.sockets?.subscribe(channel)) return this.problem('no socket with room for a channel');
    this.waiting.set(channel, { cookie, heldAt, n, done });
  }

  private released(channel: string): void {
    const visitor = this.waiting.get(channel);
    if (!visitor) return;
    this.waiting.delete(channel);
    this.sockets?.unsubscribe(channel);
    const now = preciseNow();
    this.releasedAt.push(now);
    this.waitedMs.push(now - visitor.heldAt);
    const [min, max] = this.options.reactionMs;
    setTimeout(() => void this.shop(visitor.cookie, visitor.n, visitor.done, false), min + (max - min) * this.random());
  }

  /**
   * The visit's requests from the `done`-th on, each after a think time; the first without one
   * unless `thinkFirst` (a release's replay goes at once).
   */
  private async shop(cookie: string, n: number, done: number, thinkFirst: boolean): Promise<void> {
    const [min, max] = this.options.thinkMs;
    for (let i = done; i < this.options.perVisit && !this.stopped; i++) {
      if (i > done || thinkFirst) await new Promise((resolve) => setTimeout(resolve, min + (max - min) * this.random()));
      if (this.stopped) return;
      const started = performance.now();
      let status: number;
      let body = '';
      try {
        const answer = await this.pool.request({ method: 'GET', path: `/shop/item/${n}?step=${i}`, headers: { accept: 'application/json', cookie } });
        status = answer.statusCode;
        body = await answer.body.text();
      } catch {
        status = 0;
      }
      if (this.record(started, status) === 'held') return this.wait(body, cookie, n, i, preciseNow());
    }
  }

  private record(started: number, status: number): Outcome {
    const outcome = status === 503 ? 'held' : status >= 200 && status < 400 ? 'ok' : 'error';
    this.answeredAt.push(preciseNow());
    this.answerMs.push(performance.now() - started);
    this.outcome.push(outcome);
    return outcome;
  }

  private problem(what: string): void {
    if (this.stopped) return;
    this.problems.set(what, (this.problems.get(what) ?? 0) + 1);
  }

  figures(from: number, to: number) {
    const ok: number[] = [];
    let errors = 0;
    let held = 0;
    for (let i = 0; i < this.answeredAt.length; i++) {
      const at = this.answeredAt[i];
      if (at < from || at >= to) continue;
      const outcome = this.outcome[i];
      if (outcome === 'ok') ok.push(this.answerMs[i]);
      else if (outcome === 'error') errors++;
      else held++;
    }
    const waits = this.waitedMs.filter((_, i) => this.releasedAt[i] >= from && this.releasedAt[i] < to);
    const requests = ok.length + errors + held;
    return {
      requests,
      ok: ok.length,
      errors,
      /** Visits cut short: held again mid-visit. */
      heldAgain: held,
      errorShare: requests === 0 ? 0 : errors / requests,
      latencyMs: distribution(ok),
      releases: waits.length,
      waitSeconds: { p50: Math.round(percentile(waits, 50) / 100) / 10, p90: Math.round(percentile(waits, 90) / 100) / 10 },
      arrivals: this.arrivedAt.filter((at) => at >= from && at < to).length,
      waitingNow: this.waiting.size,
      problems: Object.fromEntries(this.problems),
    };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.sockets?.close();
    await this.pool.destroy();
  }
}

export type VisitorFigures = ReturnType<Room['figures']>;

let rooms: Room[] = [];
let ticker: NodeJS.Timeout | undefined;

serveRequests(
  { pid: process.pid },
  {
    start: async (options: VisitorsOptions) => {
      const random = mulberry32(options.seed);
      rooms = options.targets.map((target) => new Room(target, options, random));
      await Promise.all(rooms.map((room) => room.open()));
      let last = performance.now();
      ticker = setInterval(() => {
        const now = performance.now();
        for (const room of rooms) room.arrive((now - last) / 1000);
        last = now;
      }, 20);
      return { startedAt: preciseNow() };
    },
    figures: ({ from, to }: { from: number; to: number }) => rooms.map((room) => room.figures(from, to)),
    stop: async () => {
      if (ticker) clearInterval(ticker);
      await Promise.all(rooms.map((room) => room.stop()));
    },
  },
);
