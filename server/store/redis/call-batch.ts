/** Sends one batch: resolves with a reader of each item's answer by its index in the batch. */
export type SendBatch<Item, Result> = (items: Item[]) => Promise<(index: number) => Result>;

interface Waiting<Result> {
  readonly resolve: (result: Result) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Calls answered in one turn of the event loop when a batch's reply comes back. Each answer's
 * continuation (the rest of the request up to its write, which the route's `TurnBudget` bounds)
 * runs as a microtask after the resolving loop, out of sight of any clock read in it: so a count
 * bounds it, not a time. 64 of them take well under a millisecond; a full batch of polls is given
 * back in four turns, not eight, since each turn between also carries a slice of any fan-out under way.
 */
export const RESOLVE_SLICE = 64;

/**
 * Answers a batch's calls from its reply, `RESOLVE_SLICE` from `from` now and the rest in the turns
 * after (`setImmediate`). A call whose answer cannot be read fails alone: thrown in a later turn,
 * the error would end the process.
 */
function resolveInSlices<Result>(waiting: readonly Waiting<Result>[], answer: (index: number) => Result, from: number): void {
  const end = Math.min(waiting.length, from + RESOLVE_SLICE);
  for (let index = from; index < end; index++) {
    try {
      waiting[index].resolve(answer(index));
    } catch (error) {
      waiting[index].reject(error);
    }
  }
  if (end < waiting.length) setImmediate(resolveInSlices<Result>, waiting, answer, end);
}

/**
 * Calls of one script sent to Redis together, as one call instead of one each: the script's own
 * cost in Redis (its call, its arguments, what it reads once for all), Redis's for reading a
 * command and writing a reply, and the client's for building one and parsing the other, are paid
 * once for all of them.
 *
 * A batch leaves once the current turn's I/O has been handled (`setImmediate`), and only while
 * no other is on its way: the calls that come meanwhile wait for its answer (a round trip at
 * most) and leave together right after it. So a call alone waits for nothing, and the busier the
 * instance, the larger its batches, up to `max`. Its answers are given back `RESOLVE_SLICE` a
 * turn, not all at once when the reply comes. A batch that fails fails each of its calls.
 */
export class CallBatch<Item, Result> {
  private items: Item[] = [];
  private waiting: Waiting<Result>[] = [];
  private scheduled = false;
  private inFlight = false;

  constructor(
    private readonly send: SendBatch<Item, Result>,
    private readonly max: number,
  ) {}

  call(item: Item): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.items.push(item);
      this.waiting.push({ resolve, reject });
      if (this.waiting.length >= this.max) this.flush();
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

  /** Sends what waits (`max` at most); once answered, whatever came meanwhile follows. */
  private flush(): void {
    if (this.waiting.length === 0) return;
    const items = this.items.splice(0, this.max);
    const waiting = this.waiting.splice(0, this.max);
    this.inFlight = true;
    this.send(items)
      .then(
        (answer) => resolveInSlices(waiting, answer, 0),
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
