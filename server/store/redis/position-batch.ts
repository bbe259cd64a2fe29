import type { Position } from '../types';

/** Sends one batch: `uuid, now` pairs; resolves with `[served, then the position and ticket of each]` (position -1: unknown). */
export type SendPositions = (pairs: readonly string[]) => Promise<readonly number[]>;

interface Waiting {
  readonly resolve: (position: Position | undefined) => void;
  readonly reject: (error: unknown) => void;
}

/** Most polls in one script call: a call stays short for Redis however busy the instance is. */
export const MAX_BATCH = 256;

/**
 * queue_info's polls that arrive in the same turn of the event loop, sent to Redis as one script
 * call instead of one each: the script's own cost in Redis (its call, its arguments, `served`),
 * and the client's for a command and its reply, are paid once for all of them, which is most of
 * what a poll cost on the Redis store. The batch leaves once the turn's I/O has been handled
 * (`setImmediate`), so a poll alone waits for nothing; a busy turn sends several batches of
 * `MAX_BATCH` at most.
 */
export class PositionBatch {
  private pairs: string[] = [];
  private waiting: Waiting[] = [];
  private scheduled = false;

  constructor(private readonly send: SendPositions) {}

  position(uuid: string, now: number): Promise<Position | undefined> {
    return new Promise((resolve, reject) => {
      this.pairs.push(uuid, String(now));
      this.waiting.push({ resolve, reject });
      if (this.waiting.length >= MAX_BATCH) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flushScheduled);
      }
    });
  }

  private readonly flushScheduled = (): void => {
    this.scheduled = false;
    this.flush();
  };

  private flush(): void {
    if (this.waiting.length === 0) return;
    const { pairs, waiting } = this;
    this.pairs = [];
    this.waiting = [];
    this.send(pairs).then(
      (reply) => {
        const served = Number(reply[0]);
        waiting.forEach(({ resolve }, index) => {
          const position = Number(reply[1 + 2 * index]);
          resolve(position < 0 ? undefined : { position, ticket: Number(reply[2 + 2 * index]), served });
        });
      },
      (error: unknown) => {
        for (const { reject } of waiting) reject(error);
      },
    );
  }
}
