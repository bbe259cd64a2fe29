/**
 * Several visitor processes (`visitors.ts`) driven as one: each holds and reads its share of the
 * visitors' sockets, from its own loopback source address, so that no single process reading
 * thousands of frames in a row is what a delivery's latency measures.
 */
import path from 'node:path';
import { distribution } from '../stats';
import type { PolledVisitor } from './http-client';
import { Child } from './ipc';
import type { Deliveries, HoldResult, MoveBatch, MoveShare } from './visitors';

/** The loopback address the `index`-th load-generator process sends from: 127.0.0.2, .3, … */
export function sourceAddress(index: number): string {
  return `127.0.0.${2 + index}`;
}

export interface VisitorGroupOptions {
  readonly processes: number;
  /** The servers' base URLs: each process spreads its visitors over them in turn. */
  readonly targets: readonly string[];
  /** The first source address's index (`sourceAddress`); each process takes the next. */
  readonly firstAddress: number;
  readonly env?: NodeJS.ProcessEnv;
}

export interface HoldArg {
  readonly concurrency: number;
  /** Give up after this many failed visitors, in all. */
  readonly maxErrors: number;
  /** false: held only, without a WebSocket or queue_request (see `visitors.ts`). */
  readonly realtime?: boolean;
}

/** Every process's `QueueMoved` reads, put together. */
export interface Moves {
  readonly batches: number;
  readonly countedBatches: number;
  /** Every QueueMoved frame read, the warm-up's included. */
  readonly frames: number;
  /** Frames of the batches in the window, whose delivery is measured. */
  readonly counted: number;
  readonly framesPerBatch: ReturnType<typeof distribution>;
  readonly waitingSockets: number;
  /** Visitors still waiting (socket open) that never heard the line's last move. */
  readonly missedByWaiting: number;
  /** Decision of the batch → a move carrying it (or a later one) read at each socket. */
  readonly latencyMs: ReturnType<typeof distribution>;
  /** Decision → the last socket of the batch read it, one value a batch. */
  readonly lastReadMs: ReturnType<typeof distribution>;
  /** Handed to the server's sockets → read by a visitors' process. */
  readonly toVisitorMs: ReturnType<typeof distribution>;
}

export class VisitorGroup {
  private readonly held: number[];

  private constructor(readonly children: readonly Child<{ pid: number }>[]) {
    this.held = children.map(() => 0);
  }

  static async start(options: VisitorGroupOptions): Promise<VisitorGroup> {
    const children = await Promise.all(
      Array.from({ length: options.processes }, (_, index) =>
        Child.start<{ pid: number }>(path.join(__dirname, 'visitors.ts'), {
          name: `visitors ${index + 1}`,
          env: {
            ...(options.env ?? process.env),
            BENCH_TARGETS: options.targets.join(','),
            BENCH_SOURCE_ADDRESS: sourceAddress(options.firstAddress + index),
            // Each process's held addresses differ from the others'.
            BENCH_INDEX_BASE: String(index * 1_000_000),
          },
        }),
      ),
    );
    return new VisitorGroup(children);
  }

  /** Visitors held so far by every process, the released ones included. */
  get everHeld(): number {
    return sum(this.held);
  }

  /**
   * Holds visitors until `total` have been held in all (the released ones included), each process
   * its share; the figures of all.
   */
  async hold(total: number, arg: HoldArg) {
    const count = this.children.length;
    const results = await Promise.all(
      this.children.map((child, index) => {
        const share = Math.floor(total / count) + (index < total % count ? 1 : 0);
        return child.request<HoldResult>('hold', {
          visitors: Math.max(share, this.held[index]),
          concurrency: Math.max(1, Math.ceil(arg.concurrency / count)),
          maxErrors: Math.max(1, Math.ceil(arg.maxErrors / count)),
          realtime: arg.realtime,
        });
      }),
    );
    results.forEach((result, index) => (this.held[index] = result.held));
    const errors: Record<string, { count: number; example: string }> = {};
    for (const result of results) mergeErrors(errors, result.errors);
    return {
      held: sum(results.map((result) => result.held)),
      admitted: sum(results.map((result) => result.admitted)),
      attempts: sum(results.map((result) => result.attempts)),
      seconds: Math.max(...results.map((result) => result.seconds)),
      holdLatencyMs: distribution(results.flatMap((result) => result.holdSamplesMs)),
      errors,
      errorCount: sum(results.map((result) => result.errorCount)),
    };
  }

  /** The visitors still waiting, with their cookies and servers, for the poller. */
  async visitors(): Promise<PolledVisitor[]> {
    return (await Promise.all(this.children.map((child) => child.request<PolledVisitor[]>('visitors')))).flat();
  }

  /** Every process's release frames and its visitors' fate, put together. */
  async deliveries(): Promise<Deliveries> {
    const shares = await Promise.all(this.children.map((child) => child.request<Deliveries>('deliveries')));
    const errors: Record<string, { count: number; example: string }> = {};
    for (const share of shares) mergeErrors(errors, share.errors);
    return {
      received: shares.flatMap((share) => share.received),
      openSockets: sum(shares.map((share) => share.openSockets)),
      waiting: sum(shares.map((share) => share.waiting)),
      replays: sum(shares.map((share) => share.replays)),
      duplicateReleases: sum(shares.map((share) => share.duplicateReleases)),
      unexpectedCloses: sum(shares.map((share) => share.unexpectedCloses)),
      errors,
      errorCount: sum(shares.map((share) => share.errorCount)),
      loopDelayMs: {
        p99: Math.max(...shares.map((share) => share.loopDelayMs.p99)),
        max: Math.max(...shares.map((share) => share.loopDelayMs.max)),
      },
    };
  }

  /** The `QueueMoved` frames of `batches` read by every process (see `visitors.ts`); each forgets what it counted. */
  async moves(batches: readonly MoveBatch[], countedFrom: number): Promise<Moves> {
    const shares = await Promise.all(this.children.map((child) => child.request<MoveShare>('moves', { batches, countedFrom })));
    const perBatch = new Map<number, { frames: number; last: number }>();
    for (const share of shares) {
      for (const [served, frames, last] of share.perBatch) {
        const batch = perBatch.get(served) ?? { frames: 0, last: Number.NaN };
        batch.frames += frames;
        if (Number.isFinite(last)) batch.last = Number.isNaN(batch.last) ? last : Math.max(batch.last, last);
        perBatch.set(served, batch);
      }
    }
    const batchesCounted = [...perBatch.values()];
    return {
      batches: batches.length,
      countedBatches: batchesCounted.length,
      frames: sum(shares.map((share) => share.frames)),
      counted: sum(batchesCounted.map((batch) => batch.frames)),
      framesPerBatch: distribution(batchesCounted.map((batch) => batch.frames)),
      waitingSockets: sum(shares.map((share) => share.waitingSockets)),
      missedByWaiting: sum(shares.map((share) => share.missedByWaiting)),
      latencyMs: distribution(shares.flatMap((share) => share.latencies)),
      lastReadMs: distribution(batchesCounted.map((batch) => batch.last).filter(Number.isFinite)),
      toVisitorMs: distribution(shares.flatMap((share) => share.toVisitor)),
    };
  }

  /** Visitors still waiting (socket open) that have not heard a move carrying `served` or more yet. */
  async lagging(served: number): Promise<number> {
    return sum(await Promise.all(this.children.map((child) => child.request<number>('lagging', served))));
  }

  /** Calls `listener` with each event `name` any process sends. */
  on(name: string, listener: (value: unknown) => void): void {
    for (const child of this.children) child.on(name, listener);
  }
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function mergeErrors(into: Record<string, { count: number; example: string }>, from: Record<string, { count: number; example: string }>): void {
  for (const [kind, { count, example }] of Object.entries(from)) {
    const known = into[kind];
    if (known) known.count += count;
    else into[kind] = { count, example };
  }
}
