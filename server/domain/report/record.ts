/**
 * What the report keeps of a room's line, in the store, so that every instance adds to one record
 * and any instance reads it whole: one row per place that entered the line, and one record per
 * minute of the clock. Each is kept `retentionMs` after its last write, then forgotten.
 *
 * A row holds no session, user id or address: only times, the place's number in the line at its
 * arrival, and what the page estimated then.
 */

/** One place, from its arrival in the line to its release. */
export interface ReportRow {
  /** The place's uuid: how the store finds the row again, never shown by the report. */
  readonly uuid: string;
  /** When the place entered the line (ms): its hold, or its bot check's solution. */
  readonly arrivedAt: number;
  /**
   * The place's number in the line at its arrival: `served + position` then. `number - served` at a
   * later minute is the position the line would give it then (at most: places ahead that walked
   * away from the middle are not in `served`).
   */
  readonly lineNumber: number;
  /** The wait in minutes the page was told at the arrival. */
  readonly estimate: number;
  /** When it was released (ms), once it was. */
  readonly releasedAt?: number;
  /** True once its held request was restored by a replay. */
  readonly replayed: boolean;
}

/** What one minute of the clock saw, line-wide. */
export interface ReportMinute {
  /** `floor(time / 60 000)`. */
  readonly minute: number;
  /** The first sample of the minute (any instance's): the line's `served` and the release rate the estimate read then. */
  readonly served?: number;
  /** Releases a minute the estimate divided positions by at that sample. */
  readonly rate?: number;
  /** The longest the line was at any sample of the minute. */
  readonly longest: number;
  readonly botSolved: number;
  readonly botFailed: number;
  readonly revoked: number;
  readonly replays: number;
}

/** A counter of a minute (`ReportStore.reportCount`). */
export type ReportCounter = 'botSolved' | 'botFailed' | 'revoked';

/** A place as the report's writes name it: its uuid, and the time it was held (the row's bucket). */
export interface ReportPlace {
  readonly uuid: string;
  readonly heldAt: number;
}

/** A place's arrival in the line, as the report keeps it. */
export interface ReportArrival extends ReportPlace {
  readonly arrivedAt: number;
  readonly lineNumber: number;
  readonly estimate: number;
}

/** One sample of the line (`ReportStore.reportSample`). */
export interface ReportSample {
  readonly served: number;
  readonly rate: number;
  readonly waiting: number;
}

/** What `reportRead` answers: the rows and minutes kept, in no particular order. */
export interface ReportData {
  readonly rows: readonly ReportRow[];
  readonly minutes: readonly ReportMinute[];
}

/** An hour in ms: the rows and minutes are kept in buckets of an hour, each expiring on its own. */
export const REPORT_BUCKET_MS = 3_600_000;

/**
 * The report's part of a room's store. Every write is one atomic step and names how long what it
 * touches is kept (`retentionMs`, the room's REPORT_RETENTION_HOURS): a bucket is forgotten that
 * long after its last write.
 */
export interface ReportStore {
  /** Keeps a place's arrival; a second arrival of the same place changes nothing. */
  reportArrival(arrival: ReportArrival, retentionMs: number): Promise<void>;
  /** Marks the places released at `at`; a place without a row, or already released, is left alone. */
  reportReleases(places: readonly ReportPlace[], at: number, retentionMs: number): Promise<void>;
  /** Marks a place's held request replayed, and counts the replay in the minute of `at`. */
  reportReplay(place: ReportPlace, at: number, retentionMs: number): Promise<void>;
  /** Adds one to a counter of the minute of `at`. */
  reportCount(counter: ReportCounter, at: number, retentionMs: number): Promise<void>;
  /** A sample of the line at `at`: the minute's first keeps `served` and `rate`; each raises its `longest`. */
  reportSample(at: number, sample: ReportSample, retentionMs: number): Promise<void>;
  /** The rows and minutes kept in the buckets from `from` to `to` (ms), as they stand at `now`. */
  reportRead(from: number, to: number, now: number): Promise<ReportData>;
}

/** The bucket of a time. */
export function reportBucket(time: number): number {
  return Math.floor(time / REPORT_BUCKET_MS);
}

/** The minute of a time. */
export function reportMinute(time: number): number {
  return Math.floor(time / 60_000);
}
