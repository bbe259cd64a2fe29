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
 * Longest spacing between two marks of one place (`SeenMarkOptions.awayMs`): a room that lets a
 * place be silent for hours still hears of each place every few minutes.
 */
export const SEEN_SPACING_MAX_MS = 300_000;

/**
 * The spacing of one place's marks for a room whose sweep drops places silent for `awayMs`: a
 * twentieth of it, at most `SEEN_SPACING_MAX_MS`. The sweep's precision is what decides it (a
 * tenth of `awayMs` at worst), not a fixed time: with `AWAY_SECONDS` at its default (30 minutes),
 * 90 s, and a line of ten million costs a third of the marks that 30 s would.
 */
export const seenSpacing = (awayMs: number): number => Math.min(SEEN_SPACING_MAX_MS, Math.floor(awayMs / 20));

export interface SeenMarkOptions {
  readonly flushMs?: number;
  readonly flushSize?: number;
  readonly callSize?: number;
  /**
   * How long a place may be silent before the sweep drops it (the room's AWAY_SECONDS), or
   * undefined to write a mark for every poll. Given, a place this instance marked is not marked
   * again for `seenSpacing(awayMs)` to twice that: the sweep then reads a last-seen at most about a
   * tenth of `awayMs` older than the latest poll, and a page polling every 5 s costs Redis one
   * mark every two minutes or so (`AWAY_SECONDS` at its default) instead of one every 5 s.
   */
  readonly awayMs?: number;
}

/**
 * The last-seen marks of the polls answered from the instance's copy of the line (`LineCopy`),
 * written to Redis late and together: within `SEEN_FLUSH_MS`, the latest mark of each place, in
 * calls of `SEEN_CALL_SIZE` marks at most, one call a turn of the event loop. A mark only keeps a
 * place from the sweep of those who walked away, which waits minutes of silence: a second late
 * changes nothing. The store writes everything that waits here before each of its other calls
 * (`flush`), so that what it reads (an entry's last-seen, the sweep, a release) counts every poll
 * this instance answered before.
 *
 * With `awayMs`, one place's marks are spaced (see `SeenMarkOptions.awayMs`): the places marked in
 * the current spacing and in the one before are remembered, in two sets that take turns, so that
 * memory holds only the places this instance answered lately.
 *
 * A write that fails is not tried again: Redis is away, and each place's next poll marks it again.
 */
export class SeenMarks {
  private readonly marks = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private readonly flushMs: number;
  private readonly flushSize: number;
  private readonly callSize: number;
  private readonly spacingMs: number;
  /** The places marked since `turnedAt`, and in the spacing before it. */
  private markedNow = new Set<string>();
  private markedBefore = new Set<string>();
  private turnedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly write: WriteMarks,
    options: SeenMarkOptions = {},
  ) {
    this.flushMs = options.flushMs ?? SEEN_FLUSH_MS;
    this.flushSize = options.flushSize ?? SEEN_FLUSH_SIZE;
    this.callSize = options.callSize ?? SEEN_CALL_SIZE;
    this.spacingMs = options.awayMs === undefined ? 0 : seenSpacing(options.awayMs);
  }

  mark(uuid: string, now: number): void {
    if (this.spacingMs > 0 && this.markedLately(uuid, now)) return;
    const before = this.marks.get(uuid);
    if (before === undefined || now > before) this.marks.set(uuid, now);
    if (this.marks.size >= this.flushSize) this.due();
    else this.timer ??= setTimeout(this.due, this.flushMs).unref();
  }

  /** Whether the place was marked within the spacing; if not, it counts as marked from now. */
  private markedLately(uuid: string, now: number): boolean {
    if (now - this.turnedAt >= this.spacingMs) {
      this.markedBefore = now - this.turnedAt >= 2 * this.spacingMs ? new Set() : this.markedNow;
      this.markedNow = new Set();
      this.turnedAt = now;
    }
    if (this.markedNow.has(uuid) || this.markedBefore.has(uuid)) return true;
    this.markedNow.add(uuid);
    return false;
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
    if (pairs.length > 0) this.write(pairs).catch(() => this.forget(pairs));
    return pairs.length / 2;
  }

  /** The places of a write that failed may be marked again at their next poll. */
  private forget(pairs: readonly string[]): void {
    for (let i = 1; i < pairs.length; i += 2) {
      this.markedNow.delete(pairs[i]);
      this.markedBefore.delete(pairs[i]);
    }
  }
}
