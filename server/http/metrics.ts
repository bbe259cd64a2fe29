import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Clock } from '../domain/clock';
import type { Stats } from '../store/types';
import type { InstanceCounts } from '../domain/console/samples';

/** What the metrics read of a room when scraped. */
export interface MeteredRoom {
  readonly name: string;
  stats(now: number): Promise<Stats>;
  readonly limits: { readonly activeLimit: number; readonly perMinute: number };
}

/** Seconds: from a millisecond to a minute, for times measured on this server. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * The server's metrics: a prom-client registry of its own (several servers may share a process,
 * as tests do) for `GET /metrics`, and the counts the console's samples read.
 *
 * The gauges are the line's, read from the store at each scrape: every instance on one Redis
 * shows the same values (take `max`). The counters and histograms are this instance's own (take
 * `sum` across instances). Each observation on the forwarding path is a few additions: no label
 * is looked up per request there, no timer made.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly releases: Counter<'room'>;
  private readonly releaseEvent: Histogram<'room'>;
  private readonly walkAways: Counter<'room'>;
  private readonly revocations: Counter<'room'>;
  private readonly queueInfo: Histogram;
  private readonly pageErrors: Counter;
  private readonly originSeconds: Histogram;
  private readonly originFailures: Counter<'kind'>;
  private counts = { pageErrors: 0, originRequests: 0, originErrors: 0, originMs: 0, revoked: 0 };

  constructor(rooms: () => readonly MeteredRoom[], clock: Clock) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    // One store read per room a scrape, shared by the gauges that need it.
    let read: { at: number; stats: Promise<Map<string, Stats>> } | undefined;
    const statsOf = async (): Promise<Map<string, Stats>> => {
      const now = clock.now();
      if (!read || now - read.at > 1000) {
        read = { at: now, stats: Promise.all(rooms().map(async (room) => [room.name, await room.stats(now)] as const)).then((all) => new Map(all)) };
      }
      return read.stats;
    };
    const lineGauge = (name: string, help: string, value: (room: MeteredRoom, stats: Stats) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['room'],
        registers,
        async collect() {
          const all = await statsOf();
          for (const room of rooms()) {
            const stats = all.get(room.name);
            if (stats) this.set({ room: room.name }, value(room, stats));
          }
        },
      });
    lineGauge('waiting_room_visitors_waiting', 'Places in line now.', (_room, stats) => stats.waiting);
    lineGauge('waiting_room_sessions_active', 'Sessions admitted now.', (_room, stats) => stats.active);
    lineGauge('waiting_room_paused', '1 while the release loop is paused.', (_room, stats) => (stats.paused ? 1 : 0));
    lineGauge('waiting_room_active_limit', "Sessions admitted at once, at most (the operator's value when set).", (room) => room.limits.activeLimit);
    lineGauge('waiting_room_release_rate', "Most releases a minute by the release loop (the operator's value when set).", (room) => room.limits.perMinute);
    this.releases = new Counter({ name: 'waiting_room_releases_total', help: 'Visitors this instance released.', labelNames: ['room'], registers });
    this.releaseEvent = new Histogram({
      name: 'waiting_room_release_event_seconds',
      help: 'From a release in the store to its RequestUnqueud event accepted by the realtime server.',
      labelNames: ['room'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.walkAways = new Counter({
      name: 'waiting_room_walk_aways_total',
      help: 'Waiting visitors silent past AWAY_SECONDS that this instance dropped from the line.',
      labelNames: ['room'],
      registers,
    });
    this.revocations = new Counter({
      name: 'waiting_room_revoked_total',
      help: 'Admitted sessions the origin ended with Waiting-Room-Command: revoke, through this instance.',
      labelNames: ['room'],
      registers,
    });
    this.queueInfo = new Histogram({ name: 'waiting_room_queue_info_seconds', help: 'Time to answer queue_info.', buckets: LATENCY_BUCKETS, registers });
    this.pageErrors = new Counter({ name: 'waiting_room_page_errors_total', help: 'Error reports the local sink received from pages.', registers });
    this.originSeconds = new Histogram({
      name: 'waiting_room_origin_seconds',
      help: "From a forwarded request's arrival to the origin's answer headers (gateway).",
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.originFailures = new Counter({
      name: 'waiting_room_origin_errors_total',
      help: 'Forwarded requests the origin failed: unreachable (502), timeout (504), or answered 5xx (status).',
      labelNames: ['kind'],
      registers,
    });
  }

  /** Shows each room's counters from the start, at 0, rather than only once something happened. */
  track(rooms: readonly string[]): void {
    for (const room of rooms) {
      this.releases.inc({ room }, 0);
      this.walkAways.inc({ room }, 0);
      this.revocations.inc({ room }, 0);
    }
  }

  released(room: string, count: number): void {
    if (count > 0) this.releases.inc({ room }, count);
  }

  /** A release event accepted by the realtime server `ms` after the release. */
  delivered(room: string, ms: number): void {
    this.releaseEvent.observe({ room }, Math.max(0, ms) / 1000);
  }

  walkedAway(room: string, count: number): void {
    if (count > 0) this.walkAways.inc({ room }, count);
  }

  revoked(room: string): void {
    this.revocations.inc({ room });
    this.counts.revoked += 1;
  }

  queueInfoAnswered(ms: number): void {
    this.queueInfo.observe(ms / 1000);
  }

  pageErrorsReceived(count: number): void {
    if (count <= 0) return;
    this.pageErrors.inc(count);
    this.counts.pageErrors += count;
  }

  /** The origin answered with `status` `ms` after the request arrived. */
  originAnswered(ms: number, status: number): void {
    this.originSeconds.observe(ms / 1000);
    this.counts.originRequests += 1;
    this.counts.originMs += ms;
    if (status >= 500) this.originFailed('status');
  }

  originFailed(kind: 'unreachable' | 'timeout' | 'status'): void {
    this.originFailures.inc({ kind });
    this.counts.originErrors += 1;
    if (kind !== 'status') this.counts.originRequests += 1;
  }

  /** What this instance counted since it started. */
  instanceCounts(): InstanceCounts {
    return { ...this.counts };
  }

  /** The text `GET /metrics` answers, and its content type. */
  async exposition(): Promise<{ readonly contentType: string; readonly body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
