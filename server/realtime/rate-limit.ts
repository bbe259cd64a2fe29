/** What to do with one message a client sent. */
export type Verdict =
  /** Within the limit: handle it. */
  | 'accept'
  /** Over the limit: drop it, unanswered. */
  | 'drop'
  /** Over the limit, the first drop of its second: drop it and tell the client (once a second at most). */
  | 'drop-and-tell'
  /** Over the limit for the third second running, each time by ten times the rate or more: close the socket. */
  | 'flood';

/** A burst of this many seconds' worth of messages is let through at once. */
const BURST_SECONDS = 2;
/** Drops are counted in windows of this length, opened by a drop; the client is told once per window. */
const WINDOW_MS = 1000;
/** A window with at least this many times the rate in drops is a flooded one… */
const FLOOD_FACTOR = 10;
/** …and this many flooded windows in a row end the connection. */
const FLOOD_WINDOWS = 3;

/**
 * The message rate of one connection: a token bucket of `perSecond` tokens a second holding
 * at most twice that, so that a client may send a burst of `2 × perSecond` at once and
 * `perSecond` a second after it. A message without a token is dropped.
 *
 * The client hears of its drops once a second at most: answering each one would turn its
 * flood into ours. A client whose drops reach ten times the rate in each of three windows in a
 * row (it sends more than eleven times what it may, for three seconds) is no pusher-js client —
 * pusher-js sends a ping per activity timeout and a subscription or two — and is told to go.
 * A single burst, however large, only ever fills one or two windows, so it is dropped, not closed.
 *
 * Pure: the caller gives the time (milliseconds on any monotonic clock). No timer, and no
 * allocation per message.
 */
export class MessageRate {
  private readonly burst: number;
  private readonly floodDrops: number;
  private tokens: number;
  private filledAt: number;
  private windowStart = Number.NEGATIVE_INFINITY;
  private windowDrops = 0;
  /** Flooded windows in a row before the current one. */
  private floodedBefore = 0;

  constructor(
    private readonly perSecond: number,
    now: number,
  ) {
    this.burst = perSecond * BURST_SECONDS;
    this.floodDrops = perSecond * FLOOD_FACTOR;
    this.tokens = this.burst;
    this.filledAt = now;
  }

  /** Takes a token for one message at `now`, and says what to do with the message. */
  take(now: number): Verdict {
    const elapsed = now - this.filledAt;
    if (elapsed > 0) {
      this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.perSecond) / 1000);
      this.filledAt = now;
    }
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 'accept';
    }
    return this.drop(now);
  }

  private drop(now: number): Verdict {
    let first = false;
    if (now - this.windowStart >= WINDOW_MS) {
      // The window closed; the run of flooded windows goes on only when the next one follows
      // at once (this drop within a window's length of its end).
      const flooded = this.windowDrops >= this.floodDrops;
      const adjacent = now - this.windowStart < 2 * WINDOW_MS;
      this.floodedBefore = flooded && adjacent ? this.floodedBefore + 1 : 0;
      this.windowStart = now;
      this.windowDrops = 0;
      first = true;
    }
    this.windowDrops += 1;
    if (this.windowDrops >= this.floodDrops && this.floodedBefore + 1 >= FLOOD_WINDOWS) return 'flood';
    return first ? 'drop-and-tell' : 'drop';
  }
}
