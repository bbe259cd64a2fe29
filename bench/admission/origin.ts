/**
 * Origins of known capacity for the admission benchmark, all in this process: `workers` each held
 * for a service time around `serviceMs` on a timer (capacity whatever the CPU), behind a
 * first-come queue; a request whose client left while it waited is dropped unserved.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveRequests } from '../capacity/ipc';
import { distribution, mulberry32, preciseNow, round } from '../stats';

/** Service times are drawn uniformly within ± `jitter` (a share) of `serviceMs`. */
export type OriginSpec = { readonly workers: number; readonly serviceMs: number; readonly jitter: number };

type Waiting = { readonly response: http.ServerResponse; readonly arrivedAt: number; gone: boolean };

const BODY = Buffer.alloc(512, 'x');

class QueueingOrigin {
  private workers: number;
  private busy = 0;
  private readonly queue: Waiting[] = [];
  private head = 0;
  private readonly random: () => number;
  /** Each answer: when it was sent and how long the request spent here (ms). */
  readonly answeredAt: number[] = [];
  readonly latency: number[] = [];
  /** Each request dropped unserved because its client had left, by when. */
  readonly droppedAt: number[] = [];
  /** Each service as the timer gave it (ms): the capacity the machine actually allowed. */
  readonly services: number[] = [];
  readonly server: http.Server;

  constructor(
    private readonly spec: OriginSpec,
    seed: number,
  ) {
    this.workers = spec.workers;
    this.random = mulberry32(seed);
    this.server = http.createServer({ keepAliveTimeout: 60_000 }, (request, response) => {
      request.resume();
      request.on('end', () => this.arrive(response));
    });
    this.server.maxRequestsPerSocket = 0;
  }

  /** From now on, only half the workers take new requests (those busy finish what they hold). */
  halve(): void {
    this.workers = Math.max(1, Math.floor(this.workers / 2));
  }

  private arrive(response: http.ServerResponse): void {
    const waiting: Waiting = { response, arrivedAt: preciseNow(), gone: false };
    response.on('close', () => {
      waiting.gone = !response.writableFinished;
    });
    this.queue.push(waiting);
    this.serve();
  }

  private serve(): void {
    while (this.busy < this.workers && this.head < this.queue.length) {
      const next = this.queue[this.head++];
      if (next.gone || next.response.destroyed) {
        this.droppedAt.push(preciseNow());
        continue;
      }
      this.busy++;
      const { serviceMs, jitter } = this.spec;
      const duration = serviceMs * (1 - jitter + 2 * jitter * this.random());
      const started = performance.now();
      setTimeout(() => {
        this.busy--;
        this.services.push(performance.now() - started);
        if (next.gone || next.response.destroyed) {
          this.droppedAt.push(preciseNow());
        } else {
          next.response.writeHead(200, { 'content-type': 'text/plain', 'content-length': BODY.length });
          next.response.end(BODY);
          const now = preciseNow();
          this.answeredAt.push(now);
          this.latency.push(now - next.arrivedAt);
        }
        this.serve();
      }, duration);
    }
    // Let the served part of the queue go, now and then.
    if (this.head > 4096 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
  }

  /** What the origin did in [from, to): answers a second, their latency, drops, and the service times. */
  figures(from: number, to: number) {
    const latencies: number[] = [];
    for (let i = 0; i < this.answeredAt.length; i++) {
      const at = this.answeredAt[i];
      if (at >= from && at < to) latencies.push(this.latency[i]);
    }
    const seconds = (to - from) / 1000;
    return {
      answeredPerSecond: latencies.length / seconds,
      latencyMs: distribution(latencies),
      dropped: this.droppedAt.filter((at) => at >= from && at < to).length,
    };
  }
}

/** Answers a second, their latency, and the requests dropped unserved: their client (the gateway, at its timeout) had left. */
export type OriginFigures = ReturnType<QueueingOrigin['figures']>;

const origins: QueueingOrigin[] = [];

serveRequests(
  { pid: process.pid },
  {
    /** Starts `count` origins of `spec`; answers their URLs. */
    start: async ({ count, spec }: { count: number; spec: OriginSpec }) => {
      const urls: string[] = [];
      for (let i = 0; i < count; i++) {
        const origin = new QueueingOrigin(spec, 1000 + i);
        await new Promise<void>((resolve) => origin.server.listen(0, '127.0.0.1', resolve));
        origins.push(origin);
        urls.push(`http://127.0.0.1:${(origin.server.address() as AddressInfo).port}`);
      }
      return urls;
    },
    halve: () => origins.forEach((origin) => origin.halve()),
    /** Each origin's figures over [from, to) (ms since the epoch). */
    figures: ({ from, to }: { from: number; to: number }) => origins.map((origin) => origin.figures(from, to)),
    /** Each origin's answers as [when, latency] pairs after `from`, for timelines. */
    answers: ({ from }: { from: number }) =>
      origins.map((origin) => origin.answeredAt.flatMap((at, i): [number, number][] => (at >= from ? [[Math.round(at), round(origin.latency[i], 1)]] : []))),
    /** The mean service time the timers gave (ms): equal to `serviceMs` on a machine with time to spare. */
    serviceMs: () => origins.map((origin) => origin.services.reduce((sum, ms) => sum + ms, 0) / Math.max(1, origin.services.length)),
  },
);
