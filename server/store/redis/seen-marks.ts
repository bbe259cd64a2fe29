/** Writes marks to Redis: `now, uuid, now, uuid, …` (the `waitingRoomMarkSeen` script). */
export type WriteMarks = (pairs: string[]) => Promise<unknown>;

/** Longest a mark waits here before it is written. */
export const SEEN_FLUSH_MS = 250;
/**
 * Most marks written in one call: a full set is written at once. Kept under Lua's limit on the
 * arguments a script can unpack (some 8,000).
 */
export const SEEN_FLUSH_SIZE = 2000;

/**
 * The last-seen marks of the polls answered from the instance's copy of the line (`LineCopy`),
 * written to Redis late and together: within `SEEN_FLUSH_MS`, the latest mark of each place, in
 * one call. A mark only keeps a place from the sweep of those who walked away, which waits
 * minutes of silence: a quarter of a second late changes nothing. The store writes what waits
 * here before each of its other calls, so that what it reads (an entry's last-seen, the sweep, a
 * release) counts every poll this instance answered before.
 *
 * A write that fails is not tried again: Redis is away, and each place's next poll marks it again.
 */
export class SeenMarks {
  private marks = new Map<string, number>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly write: WriteMarks,
    private readonly flushMs = SEEN_FLUSH_MS,
    private readonly flushSize = SEEN_FLUSH_SIZE,
  ) {}

  mark(uuid: string, now: number): void {
    const before = this.marks.get(uuid);
    if (before === undefined || now > before) this.marks.set(uuid, now);
    if (this.marks.size >= this.flushSize) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.flushMs).unref();
  }

  /** Marks waiting to be written. */
  get size(): number {
    return this.marks.size;
  }

  /** Writes the marks that wait, if any, now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.marks.size === 0) return;
    const pairs: string[] = [];
    for (const [uuid, at] of this.marks) pairs.push(String(at), uuid);
    this.marks = new Map();
    this.write(pairs).catch(() => undefined);
  }
}
