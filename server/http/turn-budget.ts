import { performance } from 'node:perf_hooks';

/** The clock a budget is measured by (ms); tests give their own. */
export type BudgetClock = () => number;

/**
 * How long one turn of the event loop may spend answering requests through a budget. An answer
 * costs some tens of µs (serialising it, the reply's hooks, the socket's write), several times
 * that on a busy machine: a burst of a few hundred read in one turn would hold the loop for
 * tens of ms. Like the fan-out's slice (`realtime/delivery.ts`), it is cut by time, not by a
 * count. It is twice the fan-out's 4 ms: while a fan-out runs, each turn carries one slice of
 * each, and answers given the same share as the fan-out fell behind the polls arriving meanwhile
 * on a busy machine (the queue_info p99 during fan-outs doubled); 8 ms and a fan-out slice still
 * fit well under the 20 ms that a timer or another socket may wait.
 */
export const TURN_BUDGET_MS = 8;

/**
 * A per-turn budget for synchronous pieces of work (`run`): while the current turn of the event
 * loop has spent less than its slice on them, work runs at once; past it, work waits in order and
 * runs in later turns, a slice each, so that timers and I/O run in between.
 *
 * A slice counts the time of the work it ran (the clock read before and after each piece), not the
 * time since it opened: what ran meanwhile (the fan-out's slices, timers, a GC pause) is not this
 * budget's, and a slice that opened late in a turn does not make the next turn's work wait.
 * A slice opens at the first `run` of a turn and closes at the end of the turn (`setImmediate`).
 * Work deferred from a turn runs from the turn after it, never in that same turn's immediates: so
 * one turn of the loop runs at most one slice of such work, however it began. Once anything waits,
 * later work waits behind it, so that no answer overtakes an earlier one.
 *
 * Work only counts if it is done by the time `run` returns (write the answer in it, not in a
 * promise it starts).
 */
export class TurnBudget {
  private readonly waiting: Array<() => void> = [];
  /** Time spent on work in the open slice (ms). */
  private spent = 0;
  /** A slice is open in this turn (it closes at the turn's immediates). */
  private open = false;
  /** Which slice is open: a slice's closing belongs to it alone. */
  private slice = 0;
  private scheduled = false;

  constructor(
    private readonly sliceMs = TURN_BUDGET_MS,
    private readonly now: BudgetClock = () => performance.now(),
    /** Told of work that threw in a later turn: the budget goes on with the rest. */
    private readonly failed: (error: unknown) => void = (error) => process.emitWarning(error as Error),
  ) {}

  /** Pieces of work waiting for a later turn. */
  get backlog(): number {
    return this.waiting.length;
  }

  /** Runs `work` now if this turn's slice has time left and nothing waits, else in a later turn, in order. */
  run(work: () => void): void {
    if (!this.open) this.openSlice();
    if (this.waiting.length === 0 && this.spent < this.sliceMs) {
      this.timed(work);
      return;
    }
    this.waiting.push(work);
    if (!this.scheduled) {
      this.scheduled = true;
      // Two hops: the first immediate may still belong to the turn that spent the slice.
      setImmediate(this.nextTurn);
    }
  }

  private timed(work: () => void): void {
    const started = this.now();
    try {
      work();
    } finally {
      this.spent += this.now() - started;
    }
  }

  private openSlice(): void {
    const slice = ++this.slice;
    this.open = true;
    this.spent = 0;
    setImmediate(() => {
      if (this.slice === slice) this.open = false;
    });
  }

  private readonly nextTurn = (): void => {
    setImmediate(this.drain);
  };

  /** Runs waiting work for one slice (at least one piece, so that the backlog always moves), then comes back next turn. */
  private readonly drain = (): void => {
    this.scheduled = false;
    this.openSlice();
    do {
      try {
        this.timed(this.waiting.shift() as () => void);
      } catch (error) {
        this.failed(error);
      }
    } while (this.waiting.length > 0 && this.spent < this.sliceMs);
    if (this.waiting.length > 0) {
      this.scheduled = true;
      setImmediate(this.drain);
    }
  };
}
