/**
 * A rehearsal: one room as the server builds it (`buildRoom`: its events, the policy in force, its
 * admission, its releases), on the memory store and a virtual clock, met by a crowd. Arrivals go
 * through what the gate does with a protected request (the event's admission, `store.arrive`, a
 * pending place when the bot check is on), the server's own release loop (`startReleaseLoop`) and
 * adaptive admission's step run on the clock, and each tracked visitor's estimate is what
 * queue_info answers. Nothing of the law is written again here; what is modelled is the outside:
 * visitors who keep their page open (nobody walks away), solve the bot check in `SOLVE_MS`
 * (bots never do), and an origin answering every admitted visitor's request every two seconds
 * along its latency curve.
 */
import pino from 'pino';
import type { Clock } from '../../server/domain/clock';
import { AdaptiveAdmission } from '../../server/domain/admission/admission';
import { CHALLENGE_LIFETIME_MS } from '../../server/domain/bot-check/challenge';
import { estimateMinutes } from '../../server/domain/estimate';
import { timeOf } from '../../server/domain/events/event';
import { startReleaseLoop } from '../../server/domain/release-loop';
import type { Room } from '../../server/domain/rooms';
import { ADMISSION_STEP_MS } from '../../server/process/admission';
import type { ServerConfig } from '../../server/process/config';
import { buildRoom } from '../../server/process/room-factory';
import { MemoryStore } from '../../server/store/memory';
import { arrivalTimes, type CrowdPart } from './crowd';
import type { OriginModel } from './origin';

const SECOND = 1000;
const MINUTE = 60_000;
/** How long a person takes to get through the bot check. */
export const SOLVE_MS = 3000;
/** Visitors whose estimate is followed (spread over the crowd). */
const TRACKED = 2000;
/** Samples kept of the line over time. */
const MAX_POINTS = 720;
/** Most origin requests told to adaptive admission per step. */
const MAX_REQUESTS_PER_STEP = 5000;

export interface RehearsalInput {
  readonly config: ServerConfig;
  /** The room's name; undefined: the first. */
  readonly room?: string;
  /** The event whose opening the crowd's times count from: an id, `none`, or undefined for the room's first. */
  readonly event?: string;
  readonly crowd: readonly CrowdPart[];
  /** Share of the crowd that are bots, in [0, 1). */
  readonly bots: number;
  readonly origin: OriginModel;
  /** Virtual time given after the last arrival for the line to drain. */
  readonly maxMs: number;
  readonly seed?: number;
}

/** A moment of the rehearsal. */
export interface Point {
  /** ms from the opening. */
  readonly t: number;
  readonly waiting: number;
  readonly active: number;
  /** Releases a minute in force. */
  readonly perMinute: number;
  /** The origin's answer time (ms) by its curve, when one was given. */
  readonly originMs?: number;
}

export interface WaitRow {
  /** Arrivals from `from` to `to` (ms from the opening). */
  readonly from: number;
  readonly to: number;
  readonly visitors: number;
  /** Seconds. */
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  /** The estimate at arrival, minutes: its mean, and the mean wait that followed. */
  readonly estimated: number | null;
  readonly waited: number | null;
}

export interface Rehearsal {
  readonly room: string;
  readonly admission: 'fixed' | 'adaptive';
  readonly event: { readonly id: string; readonly opensAt: string; readonly prequeueStartTime: string | null } | null;
  readonly crowd: { readonly visitors: number; readonly bots: number; readonly botCheck: boolean };
  readonly policy: { readonly activeLimit: number; readonly perMinute: number; readonly sessionSeconds: number };
  /** Seconds from the first arrival, from the opening, until nobody (no person) waits; null: not within the time given. */
  readonly drain: { readonly fromFirstArrival: number; readonly fromOpening: number } | null;
  /** Waits of the people let in (s): those admitted at once wait 0. */
  readonly waits: { readonly people: number; readonly through: number; readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number };
  readonly waitsByArrival: readonly WaitRow[];
  readonly origin: {
    readonly capacity: number | null;
    readonly curve: string | null;
    readonly peakActive: number;
    /** Seconds with more admitted than the capacity. */
    readonly overCapacitySeconds: number | null;
    readonly peakOriginMs: number | null;
  };
  readonly estimate: EstimateAccuracy;
  readonly timeline: readonly Point[];
  /** Real seconds the rehearsal took. */
  readonly tookSeconds: number;
}

export interface EstimateAccuracy {
  /** Tracked visitors who waited, and their estimate at arrival against the wait that followed (minutes). */
  readonly tracked: number;
  readonly atArrival: ErrorSummary | null;
  /** Every minute, every tracked visitor still waiting: the estimate against the rest of the wait. */
  readonly everyMinute: (ErrorSummary & { readonly samples: number }) | null;
  /** The mean error (minutes) of the samples of each minute, from the opening. */
  readonly byMinute: readonly { readonly minute: number; readonly meanError: number; readonly bias: number }[];
}

/** Errors in minutes: the mean, median and p90 of |estimated − waited|, the mean of estimated − waited, the share within a minute. */
export interface ErrorSummary {
  readonly meanError: number;
  readonly medianError: number;
  readonly p90Error: number;
  readonly bias: number;
  readonly within1: number;
}

/** A clock that runs its steps when told, as fast as they run. */
class VirtualClock implements Clock {
  readonly timers: { at: number; readonly ms: number; readonly step: () => Promise<void> }[] = [];

  constructor(public time: number) {}

  now(): number {
    return this.time;
  }

  every(ms: number, step: () => Promise<void>): () => void {
    const timer = { at: this.time + ms, ms, step };
    this.timers.push(timer);
    return () => this.timers.splice(this.timers.indexOf(timer), 1);
  }
}

const silent = pino({ level: 'silent' });

/** Every visitor's held request: one object, which the store keeps by reference for each place. */
const REQUEST = Object.freeze({ method: 'GET', uri: '/' });

/** Estimates read of followed visitors, a column each: a line of hours gives millions. */
class Samples {
  readonly visitor: number[] = [];
  readonly at: number[] = [];
  readonly estimated: number[] = [];

  get length(): number {
    return this.visitor.length;
  }

  push(visitor: number, at: number, estimated: number): void {
    this.visitor.push(visitor);
    this.at.push(at);
    this.estimated.push(estimated);
  }
}

/** Runs the rehearsal; throws an Error naming an unknown room or event. */
export async function rehearse(input: RehearsalInput): Promise<Rehearsal> {
  const started = performance.now();
  const { config, crowd, origin } = input;
  const index = input.room === undefined ? 0 : config.rooms.findIndex((room) => room.name === input.room);
  if (index < 0) throw new Error(`--room: there is no room "${input.room}"; rooms: ${config.rooms.map((room) => room.name).join(', ')}.`);
  const roomConfig = config.rooms[index];
  const declared = config.events.filter((event) => event.room === roomConfig.name).sort((a, b) => timeOf(a.eventStartTime) - timeOf(b.eventStartTime));
  const event = input.event === 'none' ? undefined : input.event === undefined ? declared[0] : declared.find((one) => one.id === input.event);
  if (input.event !== undefined && input.event !== 'none' && !event) {
    const known = declared.map((one) => one.id).join(', ') || 'none';
    throw new Error(`--event: room "${roomConfig.name}" has no event "${input.event}"; its events: ${known}.`);
  }
  const adaptive = roomConfig.admission.mode === 'adaptive';
  if (adaptive && !origin.latencyMs) {
    throw new Error(`room "${roomConfig.name}" admits adaptively: give the origin's latency curve, --origin-latency (active:ms pairs).`);
  }

  const arrivals = arrivalTimes(crowd);
  const n = arrivals.length;
  // The opening: the event's, else a moment of its own; the clock starts before the first arrival and the pre-queue.
  const opening = event ? timeOf(event.eventStartTime) : Date.UTC(2030, 0, 1);
  const firstArrival = n > 0 ? arrivals[0] : 0;
  const lastArrival = n > 0 ? arrivals[n - 1] : 0;
  const prequeue = event?.prequeueStartTime ? timeOf(event.prequeueStartTime) - opening : 0;
  const start = opening + Math.min(firstArrival, prequeue, 0) - SECOND;
  const clock = new VirtualClock(start);
  // Everyone keeps the page open: its polls mark the place seen, so nobody walks away.
  const rehearsed: ServerConfig = { ...config, rooms: config.rooms.map((room) => ({ ...room, awaySeconds: 7 * 24 * 3600 })) };
  const releasedAt = new Float64Array(n).fill(Number.NaN);
  /** The places of the people still waiting (or solving the bot check), by visitor. */
  const uuids = new Array<string | undefined>(n);
  let outstanding = 0;
  const room: Room = buildRoom(
    rehearsed,
    index,
    {
      clock,
      log: silent,
      publisher: () => ({
        async publishMessage() {},
        async publishRelease(entry) {
          // Each visitor's user id is its number + 1.
          const visitor = entry.userId - 1;
          if (visitor < 0) return;
          releasedAt[visitor] = clock.time;
          if (uuids[visitor] !== undefined) {
            uuids[visitor] = undefined;
            outstanding--;
          }
        },
        async publishMoved() {},
        async publishOpened() {},
      }),
    },
    new MemoryStore(),
  );
  const { store } = room;
  await room.operator.follow();
  await room.events.declare(declared.filter((one) => one === event).map(({ room: _room, ...one }) => one));
  await room.events.step();
  const loop = startReleaseLoop(room.releases, clock, config.releaseIntervalMs, silent, room.events);
  const admission = room.admission instanceof AdaptiveAdmission ? room.admission : undefined;
  if (admission) {
    clock.every(ADMISSION_STEP_MS, async () => {
      const active = (await store.stats(clock.time)).active;
      const ms = (origin.latencyMs as (active: number) => number)(active);
      const requests = Math.min(active, MAX_REQUESTS_PER_STEP);
      for (let i = 0; i < requests; i++) {
        admission.signals.forwarded();
        admission.signals.answered(ms, 200);
      }
      await admission.step().catch(() => {});
    });
  }

  // Bots spread evenly through the crowd, on a seeded draw.
  const random = mulberry32(input.seed ?? 1);
  const isBot = new Uint8Array(n);
  let botCount = 0;
  for (let i = 0; i < n; i++) {
    if (random() < input.bots) {
      isBot[i] = 1;
      botCount++;
    }
  }
  const people = n - botCount;
  const every = Math.max(1, Math.ceil(people / TRACKED));
  const trackedPlace = new Map<number, string>();
  /** At arrival, and every minute while waiting. */
  const atArrival = new Samples();
  const everyMinute = new Samples();
  const solving: { at: number; visitor: number }[] = [];
  let solvingHead = 0;
  let botCheckSeen = false;

  const estimateOf = async (uuid: string, now: number): Promise<number | undefined> => {
    // As queue_info answers it (server/http/routes/queue.ts).
    const place = await store.position(uuid, now);
    if (!place || place.pending || place.position === 0) return undefined;
    await room.events.ready(now);
    const perMinute = room.releases.policy.perMinute;
    const answer = room.events.answerFor(place, now, perMinute);
    if (answer) return answer.estimated;
    return estimateMinutes(place.position, (await store.recentReleases()).times, now, perMinute, room.releases.policy);
  };
  const track = async (visitor: number, uuid: string, now: number) => {
    if (visitor % every !== 0 || isBot[visitor]) return;
    trackedPlace.set(visitor, uuid);
    const estimated = await estimateOf(uuid, now);
    if (estimated !== undefined) atArrival.push(visitor, now, estimated);
  };

  // What the gate does with a protected request (server/http/gateway/gate.ts).
  const arrive = async (visitor: number, now: number) => {
    const scheduled = await room.events.admission(now);
    if (scheduled === 'pass') return void (releasedAt[visitor] = now);
    if (scheduled === 'closed') {
      if (await store.admit(`v${visitor}`, now, { ...room.limits, activeLimit: 0 })) releasedAt[visitor] = now;
      return;
    }
    const checked = room.botCheck.mode(now) === 'pow';
    botCheckSeen ||= checked;
    const limits = scheduled === 'line' ? room.limits : undefined;
    const arrival = await store.arrive(`v${visitor}`, visitor + 1, REQUEST, now, limits, checked ? { pendingUntil: now + CHALLENGE_LIFETIME_MS } : {});
    if (arrival.admitted) return void (releasedAt[visitor] = now);
    if (isBot[visitor] && checked) return;
    outstanding++;
    uuids[visitor] = arrival.place.entry.uuid;
    if (arrival.place.entry.state === 'pending') solving.push({ at: now + SOLVE_MS, visitor });
    else await track(visitor, arrival.place.entry.uuid, now);
  };

  const timeline: Point[] = [];
  const allPoints: Point[] = [];
  let peakActive = 0;
  let overCapacity = 0;
  let peakOriginMs = 0;
  let drainedAt: number | undefined;
  let nextArrival = 0;
  let nextSample = opening + Math.ceil((start - opening) / MINUTE) * MINUTE;
  const end = opening + lastArrival + input.maxMs;
  // A second's figures after each release step.
  const releaseTimer = clock.timers[0];
  for (;;) {
    const timer = clock.timers.reduce((soonest, one) => (one.at < soonest.at ? one : soonest));
    const arrivalAt = nextArrival < n ? opening + arrivals[nextArrival] : Number.POSITIVE_INFINITY;
    const solvedAt = solvingHead < solving.length ? solving[solvingHead].at : Number.POSITIVE_INFINITY;
    const at = Math.min(timer.at, arrivalAt, solvedAt);
    if (at > end) break;
    clock.time = at;
    if (arrivalAt === at) {
      // The arrivals before the next timer and solve, one after another (an arrival comes first at the same time).
      const until = Math.min(timer.at, end);
      do {
        clock.time = opening + arrivals[nextArrival];
        await arrive(nextArrival++, clock.time);
      } while (
        nextArrival < n &&
        opening + arrivals[nextArrival] <= Math.min(until, solvingHead < solving.length ? solving[solvingHead].at : Number.POSITIVE_INFINITY)
      );
      continue;
    }
    if (solvedAt === at) {
      const { visitor } = solving[solvingHead++];
      const uuid = uuids[visitor] as string;
      await store.enterLine(uuid, at);
      await track(visitor, uuid, at);
      continue;
    }
    timer.at += timer.ms;
    await timer.step();
    if (timer !== releaseTimer) continue;
    // A shuffled opening's draw is placed apart from the release loop, as fast as it goes.
    for (let turns = 0; room.events.limits(at).drawing !== undefined && turns < 100_000; turns++) await new Promise(setImmediate);
    const stats = await store.stats(at);
    const point: Point = {
      t: at - opening,
      waiting: stats.waiting + stats.pending,
      active: stats.active,
      perMinute: room.limits.perMinute,
      ...(origin.latencyMs && { originMs: Math.round(origin.latencyMs(stats.active)) }),
    };
    allPoints.push(point);
    peakActive = Math.max(peakActive, stats.active);
    if (origin.capacity !== undefined && stats.active > origin.capacity) overCapacity++;
    if (point.originMs !== undefined) peakOriginMs = Math.max(peakOriginMs, point.originMs);
    if (at >= nextSample) {
      nextSample += MINUTE;
      for (const [visitor, uuid] of trackedPlace) {
        if (!Number.isNaN(releasedAt[visitor])) {
          trackedPlace.delete(visitor);
          continue;
        }
        const estimated = await estimateOf(uuid, at);
        if (estimated !== undefined) everyMinute.push(visitor, at, estimated);
      }
    }
    if (nextArrival >= n && solvingHead >= solving.length && outstanding === 0) {
      drainedAt = at;
      break;
    }
  }
  await loop.stop();

  const step = Math.max(1, Math.ceil(allPoints.length / MAX_POINTS));
  for (let i = 0; i < allPoints.length; i += step) timeline.push(allPoints[i]);
  if (allPoints.length > 0 && timeline[timeline.length - 1] !== allPoints[allPoints.length - 1]) timeline.push(allPoints[allPoints.length - 1]);

  const waitOf = (i: number) => (releasedAt[i] - (opening + arrivals[i])) / SECOND;
  // The people let in, in order of arrival, and their waits (s), as arrays of numbers.
  let throughCount = 0;
  for (let i = 0; i < n; i++) if (!isBot[i] && !Number.isNaN(releasedAt[i])) throughCount++;
  const peopleThrough = new Int32Array(throughCount);
  const waits = new Float64Array(throughCount);
  for (let i = 0, k = 0; i < n; i++) {
    if (isBot[i] || Number.isNaN(releasedAt[i])) continue;
    peopleThrough[k] = i;
    waits[k++] = waitOf(i);
  }
  const allWaits = waits.slice().sort();
  const policy = room.limits;
  return {
    room: roomConfig.name,
    admission: adaptive ? 'adaptive' : 'fixed',
    event: event ? { id: event.id, opensAt: event.eventStartTime, prequeueStartTime: event.prequeueStartTime } : null,
    crowd: { visitors: n, bots: botCount, botCheck: botCheckSeen },
    policy: { activeLimit: policy.activeLimit, perMinute: policy.perMinute, sessionSeconds: policy.sessionMs / SECOND },
    drain:
      drainedAt === undefined
        ? null
        : { fromFirstArrival: round((drainedAt - opening - firstArrival) / SECOND), fromOpening: round((drainedAt - opening) / SECOND) },
    waits: {
      people,
      through: allWaits.length,
      p50: round(quantile(allWaits, 0.5)),
      p90: round(quantile(allWaits, 0.9)),
      p99: round(quantile(allWaits, 0.99)),
      max: round(allWaits.length > 0 ? allWaits[allWaits.length - 1] : Number.NaN),
    },
    waitsByArrival: waitsByArrival(arrivals, peopleThrough, waits, waitOf, atArrival),
    origin: {
      capacity: origin.capacity ?? null,
      curve: origin.curve ?? null,
      peakActive,
      overCapacitySeconds: origin.capacity === undefined ? null : (overCapacity * config.releaseIntervalMs) / SECOND,
      peakOriginMs: origin.latencyMs ? peakOriginMs : null,
    },
    estimate: accuracy(atArrival, everyMinute, releasedAt, opening),
    timeline,
    tookSeconds: round((performance.now() - started) / SECOND),
  };
}

/** Rows of waits by arrival time: `through` (visitors) and `waits` (s) in order of arrival, so each row is a run of them. */
function waitsByArrival(arrivals: Float64Array, through: Int32Array, waits: Float64Array, waitOf: (i: number) => number, samples: Samples): WaitRow[] {
  if (through.length === 0) return [];
  const first = arrivals[through[0]];
  const last = arrivals[through[through.length - 1]];
  const width = niceStep((last - first) / 10);
  const keyOf = (i: number) => (width === 0 ? 0 : Math.floor((arrivals[i] - first) / width));
  const estimates = new Map<number, { estimated: number[]; waited: number[] }>();
  for (let k = 0; k < samples.length; k++) {
    const visitor = samples.visitor[k];
    if (Number.isNaN(waitOf(visitor))) continue;
    const key = keyOf(visitor);
    let row = estimates.get(key);
    if (!row) estimates.set(key, (row = { estimated: [], waited: [] }));
    row.estimated.push(samples.estimated[k]);
    row.waited.push(waitOf(visitor) / 60);
  }
  const rows: WaitRow[] = [];
  for (let start = 0; start < through.length;) {
    const key = keyOf(through[start]);
    let end = start + 1;
    while (end < through.length && keyOf(through[end]) === key) end++;
    const sorted = waits.slice(start, end).sort();
    const row = estimates.get(key);
    rows.push({
      from: first + key * width,
      to: first + (key + 1) * width,
      visitors: sorted.length,
      p50: round(quantile(sorted, 0.5)),
      p90: round(quantile(sorted, 0.9)),
      p99: round(quantile(sorted, 0.99)),
      estimated: row ? round(average(row.estimated)) : null,
      waited: row ? round(average(row.waited)) : null,
    });
    start = end;
  }
  return rows;
}

function accuracy(atArrival: Samples, everyMinute: Samples, releasedAt: Float64Array, opening: number): EstimateAccuracy {
  /** Each judged sample's error (minutes): the estimate less the wait that followed; visitors never let in are not judged. */
  const errors = (samples: Samples) => {
    const each: number[] = [];
    for (let k = 0; k < samples.length; k++) {
      const released = releasedAt[samples.visitor[k]];
      if (Number.isNaN(released)) continue;
      each.push(samples.estimated[k] - (released - samples.at[k]) / MINUTE);
    }
    return each;
  };
  const summary = (each: readonly number[]) => {
    if (each.length === 0) return null;
    const sorted = Float64Array.from(each, Math.abs).sort();
    return {
      meanError: round(average(each.map(Math.abs))),
      medianError: round(quantile(sorted, 0.5)),
      p90Error: round(quantile(sorted, 0.9)),
      bias: round(average(each)),
      within1: round(each.filter((error) => Math.abs(error) <= 1).length / each.length),
    };
  };
  const arrival = errors(atArrival);
  const minutes = errors(everyMinute);
  // The minutes of the judged samples, in order (the samples are taken minute after minute).
  const byMinute = new Map<number, number[]>();
  for (let k = 0; k < everyMinute.length; k++) {
    const released = releasedAt[everyMinute.visitor[k]];
    if (Number.isNaN(released)) continue;
    const minute = Math.round((everyMinute.at[k] - opening) / MINUTE);
    const error = everyMinute.estimated[k] - (released - everyMinute.at[k]) / MINUTE;
    const list = byMinute.get(minute);
    if (list) list.push(error);
    else byMinute.set(minute, [error]);
  }
  const everyMinuteSummary = summary(minutes);
  return {
    tracked: arrival.length,
    atArrival: summary(arrival),
    everyMinute: everyMinuteSummary && { ...everyMinuteSummary, samples: minutes.length },
    byMinute: [...byMinute].map(([minute, each]) => ({ minute, meanError: round(average(each.map(Math.abs))), bias: round(average(each)) })),
  };
}

/** A step of 1, 2 or 5 × a power of ten seconds (or minutes, hours) at least `ms`. */
function niceStep(ms: number): number {
  if (ms <= 0) return 0;
  const steps = [1, 2, 5, 10, 15, 30]
    .map((s) => s * SECOND)
    .concat(
      [1, 2, 5, 10, 15, 30].map((m) => m * MINUTE),
      [1, 2, 3, 6, 12, 24].map((h) => h * 60 * MINUTE),
    );
  return steps.find((step) => step >= ms) ?? steps[steps.length - 1];
}

function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

const average = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const round = (value: number) => Math.round(value * 100) / 100;

/** A small seeded generator (mulberry32): the same bots every run, the same draws in every benchmark run. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
