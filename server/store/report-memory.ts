import {
  reportBucket,
  reportMinute,
  type ReportArrival,
  type ReportCounter,
  type ReportData,
  type ReportMinute,
  type ReportPlace,
  type ReportRow,
  type ReportSample,
  type ReportStore,
} from '../domain/report/record';

type MutableRow = { -readonly [K in keyof ReportRow]: ReportRow[K] };
type MutableMinute = { -readonly [K in keyof ReportMinute]: ReportMinute[K] };

/** One hour's rows or minutes, forgotten at `until` (ms), as a Redis key with its time to live. */
interface Bucket<T> {
  until: number;
  readonly items: Map<string | number, T>;
}

/**
 * The report in this process's memory (`ReportStore`), kept in buckets of an hour as the Redis
 * store keeps them, each forgotten `retentionMs` after its last write on the callers' clock. It is
 * not written to STATE_FILE: a restart starts it afresh.
 */
export class MemoryReport implements ReportStore {
  private readonly rows = new Map<number, Bucket<MutableRow>>();
  private readonly minutes = new Map<number, Bucket<MutableMinute>>();

  async reportArrival(arrival: ReportArrival, retentionMs: number): Promise<void> {
    const bucket = this.bucket(this.rows, arrival.heldAt, arrival.arrivedAt, retentionMs);
    if (bucket.items.has(arrival.uuid)) return;
    const { uuid, arrivedAt, lineNumber, estimate } = arrival;
    bucket.items.set(uuid, { uuid, arrivedAt, lineNumber, estimate, replayed: false });
  }

  async reportReleases(places: readonly ReportPlace[], at: number, retentionMs: number): Promise<void> {
    for (const place of places) {
      const bucket = this.bucket(this.rows, place.heldAt, at, retentionMs);
      const row = bucket.items.get(place.uuid);
      if (row && row.releasedAt === undefined) row.releasedAt = at;
    }
  }

  async reportReplay(place: ReportPlace, at: number, retentionMs: number): Promise<void> {
    const row = this.bucket(this.rows, place.heldAt, at, retentionMs).items.get(place.uuid);
    if (row && row.releasedAt !== undefined) row.replayed = true;
    this.minute(at, retentionMs).replays += 1;
  }

  async reportCount(counter: ReportCounter, at: number, retentionMs: number): Promise<void> {
    this.minute(at, retentionMs)[counter] += 1;
  }

  async reportSample(at: number, sample: ReportSample, retentionMs: number): Promise<void> {
    const minute = this.minute(at, retentionMs);
    if (minute.served === undefined) {
      minute.served = sample.served;
      minute.rate = sample.rate;
    }
    minute.longest = Math.max(minute.longest, sample.waiting);
  }

  async reportRead(from: number, to: number, now: number): Promise<ReportData> {
    const rows: ReportRow[] = [];
    const minutes: ReportMinute[] = [];
    for (let hour = reportBucket(from); hour <= reportBucket(to); hour++) {
      for (const row of this.live(this.rows, hour, now)) rows.push({ ...row });
      for (const minute of this.live(this.minutes, hour, now)) minutes.push({ ...minute });
    }
    return { rows, minutes };
  }

  private live<T>(buckets: Map<number, Bucket<T>>, hour: number, now: number): Iterable<T> {
    const bucket = buckets.get(hour);
    if (!bucket) return [];
    if (bucket.until <= now) {
      buckets.delete(hour);
      return [];
    }
    return bucket.items.values();
  }

  private minute(at: number, retentionMs: number): MutableMinute {
    const bucket = this.bucket(this.minutes, at, at, retentionMs);
    const minute = reportMinute(at);
    let kept = bucket.items.get(minute);
    if (!kept) {
      kept = { minute, longest: 0, botSolved: 0, botFailed: 0, revoked: 0, replays: 0 };
      bucket.items.set(minute, kept);
    }
    return kept;
  }

  /** The bucket of `time`, kept `retentionMs` from `now`; an expired one starts afresh, as an expired Redis key does. */
  private bucket<T>(buckets: Map<number, Bucket<T>>, time: number, now: number, retentionMs: number): Bucket<T> {
    const hour = reportBucket(time);
    let bucket = buckets.get(hour);
    if (!bucket || bucket.until <= now) {
      // Buckets nobody writes any more go when they expire, not only when read.
      for (const [other, kept] of buckets) if (kept.until <= now) buckets.delete(other);
      bucket = { until: 0, items: new Map() };
      buckets.set(hour, bucket);
    }
    bucket.until = now + retentionMs;
    return bucket;
  }
}
