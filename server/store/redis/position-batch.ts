import type { Position } from '../types';

/** Sends one batch: `uuid, now` pairs; resolves with `[served, then the position and ticket of each]` (position -1: unknown, -2: pending its bot check). */
export type SendPositions = (pairs: string[]) => Promise<readonly number[]>;

interface Waiting {
  readonly resolve: (position: Position | undefined) => void;
  readonly reject: (error: unknown) => void;
}

/** The position the script answers for a place that waits for its bot check. */
const PENDING = -2;

/** Most polls in one script call: a call stays short for Redis however busy the instance is. */
export const MAX_BATCH = 256;

/**
 * Polls answered in one turn of the event loop when a batch's reply comes back. Each answer's
 * continuation (the rest of queue_info up to its write, which the route's `TurnBudget` bounds)
 * runs as a microtask after the resolving loop, out of sight of any clock read in it: so a count
 * bounds it, not a time. 64 of them take well under a millisecond; a full batch is given back in
 * four turns, not eight, since each turn between also carries a slice of any fan-out under way.
 */
export const RESOLVE_SLICE = 64;

/**
 * Answers a batch's polls from its reply, `RESOLVE_SLICE` from `from` now and the rest in the
 * turns after (`setImmediate`), so that a full batch is not answered in one turn.
 */
function resolveInSlices(waiting: readonly Waiting[], reply: readonly number[], from: number): void {
  const served = Number(reply[0]);
  const end = Math.min(waiting.length, from + RESOLVE_SLICE);
  for (let index = from; index < end; index++) {
    const position = Number(reply[1 + 2 * index]);
    const ticket = Number(reply[2 + 2 * index]);
    // -2: the place waits for its bot check, with no position yet; -1: unknown.
    if (position === PENDING) waiting[index].resolve({ position: 0, ticket, served, pending: true });
    else waiting[index].resolve(position < 0 ? undefined : { position, ticket, served });
  }
  if (end < waiting.length) setImmediate(resolveInSlices, waiting, reply, end);
}

/**
 * queue_info's polls sent to Redis together, as one script call instead of one each: the
 * script's own cost in Redis (its call, its arguments, `served`), Redis's for reading a command
 * and writing a reply, and the client's for building one and parsing the other, are paid once
 * for all of them, which is most of what a poll cost on the Redis store.
 *
 * A batch leaves once the current turn's I/O has been handled (`setImmediate`), and only while
 * no other is on its way: the polls that arrive meanwhile wait for its answer (a round trip at
 * most) and leave together right after it. So a poll alone waits for nothing, and the busier the
 * instance, the larger its batches, up to `MAX_BATCH`. Its answers are given back
 * `RESOLVE_SLICE` a turn (`resolveInSlices`), not all at once when the reply comes.
 */
export class PositionBatch {
  private pairs: string[] = [];
  private waiting: Waiting[] = [];
  private scheduled = false;
  private inFlight = false;

  constructor(private readonly send: SendPositions) {}

  position(uuid: string, now: number): Promise<Position | undefined> {
    return new Promise((resolve, reject) => {
      this.pairs.push(uuid, String(now));
      this.waiting.push({ resolve, reject });
      if (this.waiting.length >= MAX_BATCH) this.flush();
      else if (!this.scheduled && !this.inFlight) {
        this.scheduled = true;
        setImmediate(this.flushScheduled);
      }
    });
  }

  private readonly flushScheduled = (): void => {
    this.scheduled = false;
    if (!this.inFlight) this.flush();
  };

  /** Sends what waits (`MAX_BATCH` at most); once answered, whatever arrived meanwhile follows. */
  private flush(): void {
    if (this.waiting.length === 0) return;
    const pairs = this.pairs.splice(0, MAX_BATCH * 2);
    const waiting = this.waiting.splice(0, MAX_BATCH);
    this.inFlight = true;
    this.send(pairs)
      .then(
        (reply) => resolveInSlices(waiting, reply, 0),
        (error: unknown) => {
          for (const { reject } of waiting) reject(error);
        },
      )
      .finally(() => {
        this.inFlight = false;
        this.flush();
      });
  }
}
