/** Writes marks to Redis: `now, uuid, now, uuid, …` (the `waitingRoomMarkSeen` script). */
export type WriteMarks = (pairs: string[]) => Promise<unknown>;

/**
 * Longest a mark waits here before it is written. A place polled again meanwhile is written once,
 * with its latest mark: a page polls every 5 s, so this only gathers a place polled faster (tabs
 * of the same visitor, a client hammering its own place), whose cost for Redis stays one mark a
 * second however often it asks.
 */
export const SEEN_FLUSH_MS = 1000;
/** Most places waiting here: past it they are due at once, so that memory stays bounded. */
export const SEEN_FLUSH_SIZE = 10_000;
/** Most marks in one call, so that none holds Redis for long (about 3 ms for 2,000). */
export const SEEN_CALL_SIZE = 2000;

/**
 * The last-seen marks of the polls answered from the instance's copy of the line (`LineCopy`),
 * written to Redis late and together: within `SEEN_FLUSH_MS`, the latest mark of each place, in
 * calls of `SEEN_CALL_SIZE` marks at most, one call a turn of the event loop. A mark only keeps a
 * place from the sweep of those who walked away, which waits minutes of silence: a second late
 * changes nothing. The store writes everything that waits here before each of its other calls
 * (`flush`), so that what it reads (an entry's last-seen, the sweep, a release) counts every poll
 * this instance answered before.
 *
 * A write that fails is not tried again: Redis is away, and each place's next poll marks it again.
 */
export class SeenMarks {
  private readonly marks = new Map<string, number>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly write: WriteMarks,
    private readonly flushMs = SEEN_FLUSH_MS,
    private readonly flushSize = SEEN_FLUSH_SIZE,
    private readonly callSize = SEEN_CALL_SIZE,
  ) {}

  mark(uuid: string, now: number): void {
    const before = this.marks.get(uuid);
    if (before === undefined || now > before) this.marks.set(uuid, now);
    if (this.marks.size >= this.flushSize) this.due();
    else this.timer ??= setTimeout(this.due, this.flushMs).unref();
  }

  /** Marks waiting to be written. */
  get size(): number {
    return this.marks.size;
  }

  /** Writes every mark that waits, now (in as many calls as it takes, sent in order). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.marks.size > 0) this.writeCall(this.callSize);
  }

  /** The marks waiting now are due: one call now, the rest a call a turn, so that no turn builds them all. */
  private readonly due = (): void => {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.writeSome(this.marks.size);
  };

  private writeSome(count: number): void {
    const left = count - this.writeCall(Math.min(count, this.callSize));
    if (left > 0 && this.marks.size > 0) setImmediate(() => this.writeSome(left));
  }

  /** Writes the `count` oldest marks in one call; returns how many. */
  private writeCall(count: number): number {
    const pairs: string[] = [];
    for (const [uuid, at] of this.marks) {
      if (pairs.length === 2 * count) break;
      pairs.push(String(at), uuid);
      this.marks.delete(uuid);
    }
    if (pairs.length > 0) this.write(pairs).catch(() => undefined);
    return pairs.length / 2;
  }
}
