import type { Result } from 'ioredis';
import { DEFAULT_CONNECT_WAIT_MS, readyWithin, type RedisClient } from '../../redis/connection';
import { readLua } from '../../redis/lua';
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
} from '../../domain/report/record';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** `lua/report-arrive.lua`: then uuid, row, uuid, row, …. */
    waitingRoomReportArrive(rows: string, ttlMs: string, ...uuidsAndRows: string[]): Result<1, Context>;
    /** `lua/report-release.lua`. */
    waitingRoomReportRelease(rows: string, at: string, ttlMs: string, ...uuids: string[]): Result<1, Context>;
    /** `lua/report-replay.lua`. */
    waitingRoomReportReplay(rows: string, minutes: string, uuid: string, field: string, ttlMs: string): Result<1, Context>;
    /** `lua/report-count.lua`. */
    waitingRoomReportCount(minutes: string, field: string, ttlMs: string): Result<1, Context>;
    /** `lua/report-sample.lua`. */
    waitingRoomReportSample(minutes: string, minute: string, served: string, rate: string, waiting: string, ttlMs: string): Result<1, Context>;
  }
}

/** The suffix of each counter's field in a minutes' hash. */
const COUNTER_FIELDS: Record<ReportCounter | 'replays', string> = { botSolved: 'b', botFailed: 'f', revoked: 'v', replays: 'y' };
const COUNTER_OF = new Map(Object.entries(COUNTER_FIELDS).map(([counter, field]) => [field, counter as ReportCounter | 'replays']));
/** Fields one HSCAN step asks for: a large hour is read in steps that each hold Redis briefly. */
const SCAN_COUNT = 2000;
/** Most arrivals one call writes. */
const ARRIVALS_PER_CALL = 500;
/**
 * Longest an arrival's row waits to be written with others. A gateway process of a large room takes
 * tens of arrivals a second, one a turn: a row written each turn was a script call an arrival
 * beside the arrival's own. Rows are a record read after the drop, and any other call of the
 * report writes them first; a process that dies loses the last second's rows, never a place.
 */
export const ARRIVAL_ROWS_MS = 1000;

/** The arrivals that wait to be written to one hour's rows, and the promise their callers hold. */
interface ArrivalBatch {
  readonly fields: string[];
  readonly ttlMs: string;
  readonly written: Promise<void>;
  settle(error?: Error): void;
}

function arrivalBatch(ttlMs: string): ArrivalBatch {
  let settle: (error?: Error) => void = () => undefined;
  const written = new Promise<void>((resolve, reject) => {
    settle = (error) => (error === undefined ? resolve() : reject(error));
  });
  return { fields: [], ttlMs, written, settle };
}

const SCRIPTS = [
  ['waitingRoomReportArrive', 'report-arrive', 1],
  ['waitingRoomReportRelease', 'report-release', 1],
  ['waitingRoomReportReplay', 'report-replay', 2],
  ['waitingRoomReportCount', 'report-count', 1],
  ['waitingRoomReportSample', 'report-sample', 1],
] as const;

/**
 * The report in Redis (`ReportStore`), beside the room's line under its prefix (on a Cluster, its
 * hash tag: one slot), so that every instance adds to the same record:
 * - `<prefix>rp:p:<hour>`, a hash of the places that arrived in that hour (by their hold): uuid →
 *   `arrivedAt,lineNumber,estimate[,releasedAt[,1]]` (the `1`: replayed), times in ms;
 * - `<prefix>rp:m:<hour>`, a hash of that hour's minutes: `<minute>` → `served,rate,longest` (the
 *   minute's first sample, and the longest line sampled), and `<minute>:b|f|v|y` the bot checks
 *   solved and failed, the revocations and the replays.
 * Each write is one script that also sets the key's time to live to the retention: a key is gone
 * that long after its last write, by Redis itself. The arrivals' rows are written together, one
 * script for many, within `ARRIVAL_ROWS_MS` of the first, and before any other call of the
 * report, so that a release or a read finds them.
 */
export class RedisReport implements ReportStore {
  /** The arrivals waiting to be written, by the hour's rows they go to. */
  private readonly arrivals = new Map<string, ArrivalBatch>();
  private writing?: NodeJS.Timeout;
  private waitingRows = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {
    const client = redis;
    for (const [command, file, keys] of SCRIPTS) {
      if (!Object.hasOwn(client, command)) client.defineCommand(command, { lua: readLua(`store/redis/lua/${file}.lua`), numberOfKeys: keys });
    }
  }

  reportArrival(arrival: ReportArrival, retentionMs: number): Promise<void> {
    const key = this.rowsKey(reportBucket(arrival.heldAt));
    let batch = this.arrivals.get(key);
    if (!batch) {
      batch = arrivalBatch(String(retentionMs));
      this.arrivals.set(key, batch);
    }
    batch.fields.push(arrival.uuid, `${arrival.arrivedAt},${arrival.lineNumber},${arrival.estimate}`);
    const written = batch.written;
    if (++this.waitingRows >= ARRIVALS_PER_CALL) void this.writeArrivals();
    else this.writing ??= setTimeout(() => void this.writeArrivals(), ARRIVAL_ROWS_MS).unref();
    return written;
  }

  /**
   * Sends every arrival that waits (within `ARRIVAL_ROWS_MS`, once a call's worth waits, before
   * another call, and when the store closes), each hour's in calls of `ARRIVALS_PER_CALL`, sent
   * at once and in order.
   */
  async writeArrivals(): Promise<void> {
    if (this.writing) clearTimeout(this.writing);
    this.writing = undefined;
    this.waitingRows = 0;
    const batches = [...this.arrivals];
    this.arrivals.clear();
    await Promise.all(
      batches.map(async ([key, batch]) => {
        try {
          const client = await this.client();
          const calls: Promise<unknown>[] = [];
          for (let i = 0; i < batch.fields.length; i += 2 * ARRIVALS_PER_CALL) {
            calls.push(client.waitingRoomReportArrive(key, batch.ttlMs, ...batch.fields.slice(i, i + 2 * ARRIVALS_PER_CALL)));
          }
          await Promise.all(calls);
          batch.settle();
        } catch (error) {
          batch.settle(error as Error);
        }
      }),
    );
  }

  async reportReleases(places: readonly ReportPlace[], at: number, retentionMs: number): Promise<void> {
    void this.writeArrivals();
    const byHour = new Map<number, string[]>();
    for (const { uuid, heldAt } of places) {
      const hour = reportBucket(heldAt);
      byHour.set(hour, [...(byHour.get(hour) ?? []), uuid]);
    }
    const client = await this.client();
    await Promise.all([...byHour].map(([hour, uuids]) => client.waitingRoomReportRelease(this.rowsKey(hour), String(at), String(retentionMs), ...uuids)));
  }

  async reportReplay(place: ReportPlace, at: number, retentionMs: number): Promise<void> {
    void this.writeArrivals();
    const field = `${reportMinute(at)}:${COUNTER_FIELDS.replays}`;
    await (
      await this.client()
    ).waitingRoomReportReplay(this.rowsKey(reportBucket(place.heldAt)), this.minutesKey(reportBucket(at)), place.uuid, field, String(retentionMs));
  }

  async reportCount(counter: ReportCounter, at: number, retentionMs: number): Promise<void> {
    await (
      await this.client()
    ).waitingRoomReportCount(this.minutesKey(reportBucket(at)), `${reportMinute(at)}:${COUNTER_FIELDS[counter]}`, String(retentionMs));
  }

  async reportSample(at: number, sample: ReportSample, retentionMs: number): Promise<void> {
    await (
      await this.client()
    ).waitingRoomReportSample(
      this.minutesKey(reportBucket(at)),
      String(reportMinute(at)),
      String(sample.served),
      String(Math.round(sample.rate * 1000) / 1000),
      String(sample.waiting),
      String(retentionMs),
    );
  }

  async reportRead(from: number, to: number): Promise<ReportData> {
    void this.writeArrivals();
    // HSCAN may give a field twice (while Redis resizes the hash): rows by uuid.
    const rows = new Map<string, ReportRow>();
    const minutes = new Map<number, { -readonly [K in keyof ReportMinute]: ReportMinute[K] }>();
    const minuteOf = (minute: number) => {
      let kept = minutes.get(minute);
      if (!kept) {
        kept = { minute, longest: 0, botSolved: 0, botFailed: 0, revoked: 0, replays: 0 };
        minutes.set(minute, kept);
      }
      return kept;
    };
    for (let hour = reportBucket(from); hour <= reportBucket(to); hour++) {
      await this.scan(this.rowsKey(hour), (uuid, value) => {
        const [arrivedAt, lineNumber, estimate, releasedAt, replayed] = value.split(',').map(Number);
        rows.set(uuid, { uuid, arrivedAt, lineNumber, estimate, ...(releasedAt !== undefined && { releasedAt }), replayed: replayed === 1 });
      });
      await this.scan(this.minutesKey(hour), (field, value) => {
        const [minute, suffix] = field.split(':');
        const kept = minuteOf(Number(minute));
        if (suffix === undefined) {
          const [served, rate, longest] = value.split(',').map(Number);
          Object.assign(kept, { served, rate, longest: Math.max(kept.longest, longest) });
        } else {
          const counter = COUNTER_OF.get(suffix);
          if (counter) kept[counter] = Number(value);
        }
      });
    }
    return { rows: [...rows.values()], minutes: [...minutes.values()] };
  }

  /** The client once connected: a call at start waits for the connection, as the line's do. */
  private async client(): Promise<RedisClient> {
    await readyWithin(this.redis, DEFAULT_CONNECT_WAIT_MS);
    return this.redis;
  }

  private async scan(key: string, each: (field: string, value: string) => void): Promise<void> {
    let cursor = '0';
    do {
      const [next, flat] = await (await this.client()).hscan(key, cursor, 'COUNT', SCAN_COUNT);
      for (let i = 0; i < flat.length; i += 2) each(flat[i], flat[i + 1]);
      cursor = next;
    } while (cursor !== '0');
  }

  private rowsKey(hour: number): string {
    return `${this.prefix}rp:p:${hour}`;
  }

  private minutesKey(hour: number): string {
    return `${this.prefix}rp:m:${hour}`;
  }
}
