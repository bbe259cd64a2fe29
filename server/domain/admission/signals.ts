import { BUCKETS, addCounts, bucketOf, percentileOf, type SparseCounts } from './histogram';

/**
 * What one instance saw of the origin's answers to admitted requests in one step of the
 * controller, in a form that adds up across steps and instances.
 */
export interface SignalCounts {
  /** Admitted requests handed to the origin. */
  readonly sent: number;
  /** Answers the origin gave (any status). */
  readonly requests: number;
  /** Of those, 5xx. */
  readonly errors: number;
  /** Requests the origin did not start answering within UPSTREAM_TIMEOUT_MS (the visitor got 504). */
  readonly timeouts: number;
  /** Requests that could not reach the origin (refused, reset: the visitor got 502). */
  readonly unreachable: number;
  /** Latency of the answers (to their headers), by bucket (`histogram.ts`). */
  readonly latency: SparseCounts;
  /**
   * Steps of an instance whose own event loop lagged too much for its latencies to be the
   * origin's: those were left out (their answers and failures still count).
   */
  readonly lagged: number;
}

export const NO_SIGNALS: SignalCounts = { sent: 0, requests: 0, errors: 0, timeouts: 0, unreachable: 0, latency: {}, lagged: 0 };

/** The sum of several counts (steps of a window, or instances). */
export function addSignals(all: readonly SignalCounts[]): SignalCounts {
  const latency: Record<number, number> = {};
  let sent = 0;
  let requests = 0;
  let errors = 0;
  let timeouts = 0;
  let unreachable = 0;
  let lagged = 0;
  for (const one of all) {
    sent += one.sent;
    requests += one.requests;
    errors += one.errors;
    timeouts += one.timeouts;
    unreachable += one.unreachable;
    lagged += one.lagged;
    addCounts(latency, one.latency);
  }
  return { sent, requests, errors, timeouts, unreachable, latency, lagged };
}

/** What the controller reads of a window, and what the admin API shows of it. */
export interface SignalSummary {
  /** Admitted requests handed to the origin, and the answers it gave (any status). */
  readonly sent: number;
  readonly requests: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly unreachable: number;
  /** Steps whose latencies an instance left out, its own event loop lagging (`SignalCounts.lagged`). */
  readonly lagged: number;
  /** Latency percentiles in ms (to within 4 %); 0 without answers. */
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  /** The window's span, in ms of the clock: [from, to). */
  readonly from: number;
  readonly to: number;
}

export function summarize(counts: SignalCounts, from: number, to: number): SignalSummary {
  return {
    sent: counts.sent,
    requests: counts.requests,
    errors: counts.errors,
    timeouts: counts.timeouts,
    unreachable: counts.unreachable,
    lagged: counts.lagged,
    p50Ms: percentileOf(counts.latency, 0.5),
    p90Ms: percentileOf(counts.latency, 0.9),
    p99Ms: percentileOf(counts.latency, 0.99),
    from,
    to,
  };
}

/**
 * One instance's account of a room's admitted requests as the gateway forwards them. It is on
 * the forwarding path, so recording costs a few additions into preallocated arrays: no object
 * is made per request. `take()` hands over what was counted since the last call.
 */
export class OriginSignals {
  private readonly buckets = new Float64Array(BUCKETS);
  private sent = 0;
  private requests = 0;
  private errors = 0;
  private timeouts = 0;
  private unreachable = 0;

  /** An admitted request goes to the origin. */
  forwarded(): void {
    this.sent++;
  }

  /** The origin answered (its headers came) `ms` after the request was forwarded, with `status`. */
  answered(ms: number, status: number): void {
    this.requests++;
    if (status >= 500) this.errors++;
    this.buckets[bucketOf(ms)]++;
  }

  /** The request failed before any answer: the origin too slow (`timeout`) or out of reach. */
  failed(timeout: boolean): void {
    if (timeout) this.timeouts++;
    else this.unreachable++;
  }

  /**
   * What was counted since the last call, and a fresh start. `lagged`: this process's event loop
   * was late enough meanwhile that the latencies are partly its own; they are left out.
   */
  take(lagged = false): SignalCounts {
    const latency: Record<number, number> = {};
    for (let bucket = 0; bucket < BUCKETS && !lagged; bucket++) {
      const count = this.buckets[bucket];
      if (count > 0) latency[bucket] = count;
    }
    const taken = {
      sent: this.sent,
      requests: this.requests,
      errors: this.errors,
      timeouts: this.timeouts,
      unreachable: this.unreachable,
      latency,
      lagged: lagged ? 1 : 0,
    };
    this.buckets.fill(0);
    this.sent = this.requests = this.errors = this.timeouts = this.unreachable = 0;
    return taken;
  }
}
