import type { InstanceSample, RoomSample, Sample } from '../../server/domain/console/samples';

/** One moment of the console's chart: every room's line, and the counts of every instance heard for it. */
export interface Point {
  readonly t: number;
  readonly rooms: ReadonlyMap<string, RoomSample>;
  readonly local: InstanceSample;
  /** The instances whose counts are in `local`, so that each adds once. */
  readonly instances: ReadonlySet<string>;
}

const HOUR = 3600_000;
const MINUTE = 60_000;

const add = (a: InstanceSample, b: InstanceSample): InstanceSample => ({
  pageErrors: a.pageErrors + b.pageErrors,
  originRequests: a.originRequests + b.originRequests,
  originErrors: a.originErrors + b.originErrors,
  originMs: a.originMs + b.originMs,
  revoked: (a.revoked ?? 0) + (b.revoked ?? 0),
});

/**
 * `points` with `sample` in its place, oldest first, the last hour kept. Instances on one store
 * sample at the same times: a second instance's sample for a moment adds its counts to it (the
 * line is the same on both), and a sample heard twice counts once.
 */
export function addSample(points: readonly Point[], sample: Sample): Point[] {
  const rooms = new Map(sample.rooms.map((room) => [room.room, room]));
  let at = points.length;
  while (at > 0 && points[at - 1].t > sample.t) at--;
  const same = at > 0 && points[at - 1].t === sample.t ? points[at - 1] : undefined;
  let next: Point[];
  if (same) {
    if (same.instances.has(sample.instance)) return [...points];
    const merged: Point = { t: sample.t, rooms, local: add(same.local, sample.local), instances: new Set([...same.instances, sample.instance]) };
    next = [...points.slice(0, at - 1), merged, ...points.slice(at)];
  } else {
    const point: Point = { t: sample.t, rooms, local: sample.local, instances: new Set([sample.instance]) };
    next = [...points.slice(0, at), point, ...points.slice(at)];
  }
  const newest = next[next.length - 1].t;
  const first = next.findIndex((point) => point.t > newest - HOUR);
  return first > 0 ? next.slice(first) : next;
}

/** What the console shows of a room: its line now and its rates over the last minute. */
export interface RoomFigures {
  readonly now: RoomSample;
  /** Per minute, over the last minute (or as much of it as was heard); undefined before two samples. */
  readonly releasesPerMinute?: number;
  readonly arrivalsPerMinute?: number;
  readonly walkAwaysPerMinute?: number;
}

/** Counts of every room together (they are the instances'), over the last minute. */
export interface InstanceFigures {
  readonly pageErrorsPerMinute: number;
  readonly originRequestsPerMinute: number;
  readonly originErrorsPerMinute: number;
  /** Admitted sessions the origin ended (`Waiting-Room-Command: revoke`). */
  readonly revokedPerMinute: number;
  /** Mean time to the origin's answer, ms; undefined when nothing was forwarded. */
  readonly originMeanMs?: number;
}

/** `room`'s figures at the newest point, or undefined when it was never heard. */
export function roomFigures(points: readonly Point[], room: string): RoomFigures | undefined {
  const latest = points.at(-1);
  const now = latest?.rooms.get(room);
  if (!latest || !now) return undefined;
  const before = [...points].reverse().find((point) => point.t <= latest.t - MINUTE && point.rooms.has(room)) ?? points.find((point) => point.rooms.has(room));
  const then = before?.rooms.get(room);
  if (!before || !then || before.t >= latest.t) return { now };
  const minutes = (latest.t - before.t) / MINUTE;
  const released = now.released - then.released;
  const arrived = now.arrived - then.arrived;
  return {
    now,
    releasesPerMinute: released / minutes,
    arrivalsPerMinute: arrived / minutes,
    // Every place taken is waiting, released or gone: the rest of the arrivals walked away.
    walkAwaysPerMinute: Math.max(0, arrived - released - (now.waiting - then.waiting)) / minutes,
  };
}

/** The instances' counts over the last minute of `points`, each point counting one interval of `sampleMs`. */
export function instanceFigures(points: readonly Point[], sampleMs: number): InstanceFigures {
  const latest = points.at(-1);
  const recent = latest ? points.filter((point) => point.t > latest.t - MINUTE) : [];
  const none: InstanceSample = { pageErrors: 0, originRequests: 0, originErrors: 0, originMs: 0, revoked: 0 };
  const sum = recent.reduce((total, point) => add(total, point.local), none);
  const minutes = Math.max(1, recent.length) * (sampleMs / MINUTE);
  return {
    pageErrorsPerMinute: sum.pageErrors / minutes,
    originRequestsPerMinute: sum.originRequests / minutes,
    originErrorsPerMinute: sum.originErrors / minutes,
    revokedPerMinute: (sum.revoked ?? 0) / minutes,
    ...(sum.originRequests > 0 ? { originMeanMs: sum.originMs / sum.originRequests } : {}),
  };
}

/** The chart's columns for `room`: times (s), waiting, active, releases a minute. */
export function chartSeries(points: readonly Point[], room: string): [number[], (number | null)[], (number | null)[], (number | null)[]] {
  const times: number[] = [];
  const waiting: (number | null)[] = [];
  const active: (number | null)[] = [];
  const rate: (number | null)[] = [];
  let from = 0;
  points.forEach((point, i) => {
    const now = point.rooms.get(room);
    while (points[from].t < point.t - MINUTE) from++;
    const then = points[from].rooms.get(room);
    times.push(point.t / 1000);
    waiting.push(now?.waiting ?? null);
    active.push(now?.active ?? null);
    rate.push(now && then && i > from ? ((now.released - then.released) * MINUTE) / (point.t - points[from].t) : null);
  });
  return [times, waiting, active, rate];
}
