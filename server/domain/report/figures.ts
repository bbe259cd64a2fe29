import { minutesAt } from '../estimate';
import { reportMinute, type ReportMinute, type ReportRow } from './record';

const MINUTE = 60_000;

/** What became of a place: released (and its held request replayed, or not), still waiting, or gone from the line unreleased. */
export type PlaceOutcome = 'admitted' | 'replayed' | 'waiting' | 'abandoned';

/** One place in the report, in arrival order. Nothing in it names the visitor. */
export interface PlaceFigures {
  /** 1 for the first arrival of the report. */
  readonly place: number;
  readonly arrivedAt: number;
  readonly lineNumber: number;
  /** The estimate at the arrival, in minutes. */
  readonly estimate: number;
  /** The estimate the line gave the place at each minute of the clock while it waited, in minutes (see `estimatesOf`). */
  readonly estimates: readonly number[];
  readonly releasedAt?: number;
  /** From arrival to release, in minutes. */
  readonly wait?: number;
  readonly outcome: PlaceOutcome;
}

/** A median and a 90th percentile, in minutes, over `samples` values; null without any. */
export interface Spread {
  readonly samples: number;
  readonly median: number | null;
  readonly p90: number | null;
}

/** One minute of the timeline. */
export interface TimelineMinute {
  readonly at: number;
  readonly arrivals: number;
  readonly admitted: number;
  /** The longest the line was sampled in that minute; null when no instance sampled it (an idle line is not sampled). */
  readonly line: number | null;
}

export interface ReportFigures {
  readonly arrivals: number;
  readonly peakLine: number;
  readonly admitted: number;
  readonly abandoned: number;
  readonly waiting: number;
  readonly revoked: number;
  readonly replays: number;
  readonly botChecks: { readonly solved: number; readonly failed: number };
  /** The waits of those admitted, in minutes, by nearest rank; null before anyone was. */
  readonly waits: { readonly p50: number; readonly p90: number; readonly p99: number } | null;
  /**
   * The estimate's error, |estimated − waited| in minutes, over every estimate given to a place
   * admitted since (at its arrival and at each minute after); `atArrival` over the first only;
   * `bias` the median of estimated − waited (above 0: the estimate said longer than the wait).
   */
  readonly estimateError: Spread & { readonly bias: number | null; readonly atArrival: Spread };
  /** How many admitted waited 0 to 1 minute, 1 to 2…, the last counting every longer wait. */
  readonly waitsByMinute: readonly number[];
  /** How many estimates were off by 0 to 1 minute, 1 to 2…, the last counting every larger error. */
  readonly errorsByMinute: readonly number[];
  readonly timeline: readonly TimelineMinute[];
  readonly places: readonly PlaceFigures[];
}

/** Buckets of a distribution: a minute each, the last holding the rest. */
export const DISTRIBUTION_MINUTES = 120;

/** What the report knows of a place it has no release of: still in line, released (its release not reported), or gone. */
export type UnreleasedState = { readonly state: 'waiting' } | { readonly state: 'released'; readonly releasedAt: number } | { readonly state: 'gone' };

/**
 * The report's figures over the places that arrived from `from` to `to` (ms) and the minutes in
 * that window. `unreleased` tells what became of each row without a release (by uuid). Pure: the
 * same rows give the same figures, whichever store or instance they were read from.
 */
export function reportFigures(
  rows: readonly ReportRow[],
  minutes: readonly ReportMinute[],
  unreleased: ReadonlyMap<string, UnreleasedState>,
  from: number,
  to: number,
): ReportFigures {
  const samples = new Map(minutes.map((minute) => [minute.minute, minute]));
  const inWindow = minutes.filter((minute) => minute.minute * MINUTE >= reportMinute(from) * MINUTE && minute.minute * MINUTE <= to);
  const arrived = rows.filter((row) => row.arrivedAt >= from && row.arrivedAt <= to).sort((a, b) => a.arrivedAt - b.arrivedAt || a.lineNumber - b.lineNumber);
  const places = arrived.map((row, index): PlaceFigures => {
    const known = row.releasedAt === undefined ? unreleased.get(row.uuid) : undefined;
    const releasedAt = row.releasedAt ?? (known?.state === 'released' ? known.releasedAt : undefined);
    const outcome: PlaceOutcome = releasedAt !== undefined ? (row.replayed ? 'replayed' : 'admitted') : known?.state === 'waiting' ? 'waiting' : 'abandoned';
    return {
      place: index + 1,
      arrivedAt: row.arrivedAt,
      lineNumber: row.lineNumber,
      estimate: row.estimate,
      estimates: estimatesOf(row, releasedAt ?? to, samples).map(({ estimate }) => estimate),
      ...(releasedAt !== undefined && { releasedAt, wait: round((releasedAt - row.arrivedAt) / MINUTE) }),
      outcome,
    };
  });
  const admittedRows = places.filter((place) => place.releasedAt !== undefined);
  const waits = admittedRows.map((place) => (place.releasedAt! - place.arrivedAt) / MINUTE);
  const errors: number[] = [];
  const signed: number[] = [];
  const atArrival: number[] = [];
  for (const place of admittedRows) {
    const releasedAt = place.releasedAt!;
    const first = place.estimate - (releasedAt - place.arrivedAt) / MINUTE;
    atArrival.push(Math.abs(first));
    signed.push(first);
    for (const { at, estimate } of estimatesOf(place, releasedAt, samples)) signed.push(estimate - (releasedAt - at) / MINUTE);
  }
  for (const error of signed) errors.push(Math.abs(error));
  const sum = (field: 'revoked' | 'replays' | 'botSolved' | 'botFailed') => inWindow.reduce((total, minute) => total + minute[field], 0);
  return {
    arrivals: places.length,
    peakLine: inWindow.reduce((peak, minute) => Math.max(peak, minute.longest), 0),
    admitted: admittedRows.length,
    abandoned: places.filter((place) => place.outcome === 'abandoned').length,
    waiting: places.filter((place) => place.outcome === 'waiting').length,
    revoked: sum('revoked'),
    replays: sum('replays'),
    botChecks: { solved: sum('botSolved'), failed: sum('botFailed') },
    waits: waits.length === 0 ? null : { p50: round(rank(waits, 50)), p90: round(rank(waits, 90)), p99: round(rank(waits, 99)) },
    estimateError: { ...spread(errors), bias: signed.length === 0 ? null : round(rank(signed, 50)), atArrival: spread(atArrival) },
    waitsByMinute: histogram(waits),
    errorsByMinute: histogram(errors),
    timeline: timelineOf(places, inWindow),
    places,
  };
}

/**
 * The estimates the line gave a place at each minute of the clock after its arrival, before
 * `until` (its release): at minute m, from the minute's first sample, its position `lineNumber −
 * served` (places ahead that walked away from the middle are not in `served`, so this is at most
 * the position the page was shown) at the minute's release rate, as `estimateMinutes` does. A
 * minute without a sample, or where the place had reached the head already, gives none.
 */
export function estimatesOf(
  row: Pick<ReportRow, 'arrivedAt' | 'lineNumber'>,
  until: number,
  samples: ReadonlyMap<number, ReportMinute>,
): { readonly at: number; readonly estimate: number }[] {
  const estimates: { at: number; estimate: number }[] = [];
  for (let minute = reportMinute(row.arrivedAt) + 1; minute * MINUTE < until; minute++) {
    const sample = samples.get(minute);
    if (sample?.served === undefined || sample.rate === undefined || sample.rate <= 0) continue;
    const position = row.lineNumber - sample.served;
    if (position >= 1) estimates.push({ at: minute * MINUTE, estimate: minutesAt(position, sample.rate) });
  }
  return estimates;
}

function timelineOf(places: readonly PlaceFigures[], minutes: readonly ReportMinute[]): TimelineMinute[] {
  const byMinute = new Map<number, { arrivals: number; admitted: number; line: number | null }>();
  const at = (minute: number) => {
    let kept = byMinute.get(minute);
    if (!kept) byMinute.set(minute, (kept = { arrivals: 0, admitted: 0, line: null }));
    return kept;
  };
  for (const minute of minutes) if (minute.served !== undefined) at(minute.minute).line = minute.longest;
  for (const place of places) {
    at(reportMinute(place.arrivedAt)).arrivals += 1;
    if (place.releasedAt !== undefined) at(reportMinute(place.releasedAt)).admitted += 1;
  }
  if (byMinute.size === 0) return [];
  const first = Math.min(...byMinute.keys());
  const last = Math.max(...byMinute.keys());
  const timeline: TimelineMinute[] = [];
  for (let minute = first; minute <= last; minute++)
    timeline.push({ at: minute * MINUTE, ...(byMinute.get(minute) ?? { arrivals: 0, admitted: 0, line: null }) });
  return timeline;
}

function histogram(values: readonly number[]): number[] {
  if (values.length === 0) return [];
  const counts = new Array<number>(Math.min(DISTRIBUTION_MINUTES, Math.floor(values.reduce((most, value) => Math.max(most, value), 0)) + 1)).fill(0);
  for (const value of values) counts[Math.min(counts.length - 1, Math.floor(value))] += 1;
  return counts;
}

function spread(values: readonly number[]): Spread {
  if (values.length === 0) return { samples: 0, median: null, p90: null };
  return { samples: values.length, median: round(rank(values, 50)), p90: round(rank(values, 90)) };
}

/** The `p`th percentile by nearest rank: the smallest value at least `p`% of the values are at or below. */
export function rank(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Minutes to the hundredth. */
function round(minutes: number): number {
  return Math.round(minutes * 100) / 100;
}
