import { performance } from 'node:perf_hooks';

/** What a delivery writes to: one subscriber's socket (`Connection`). */
export interface FrameTarget {
  readonly id: string;
  sendFrame(frame: Buffer): void;
}

/** One channel event on its way: the frame, the subscribers when it was published, and how far it got. */
interface Pending {
  readonly frame: Buffer;
  readonly targets: readonly FrameTarget[];
  readonly exceptSocketId: string | undefined;
  next: number;
}

/**
 * How long one turn of the event loop may write sockets. Writing a prepared frame to a socket
 * costs about 10 µs on an idle 2-core machine (nearly all of it the socket's own write, one system
 * call each, where `ws.send` took about 15 µs), several times that while the machine is busy: a
 * slice is cut by time, not by a count, so that it stays well under the 20 ms that a queue_info
 * may wait behind it however busy the machine is.
 */
export const SLICE_MS = 4;

/** Sockets written between two looks at the clock (a few hundred µs of work). */
const CLOCK_EVERY = 32;

/**
 * Writes channel events to their subscribers `SLICE_MS` at a time, yielding to the event loop
 * (`setImmediate`: after the pending I/O, so HTTP requests are answered in between) when a slice
 * is spent: one event to every waiting page (10,000 sockets) would otherwise hold the
 * server for all of them at once.
 *
 * Events go out in the order they were published, one after the other: an event starts only
 * once every earlier one has been written to all its subscribers, so that the frames of one
 * socket keep their order whatever channels they come from (a release never overtakes the
 * earlier `QueueMoved`, nor one move the one before). Small events behind a large one wait for
 * its remaining slices; when nothing is under way an event starts at once, so one to a single
 * socket is written before `deliver` returns.
 *
 * The subscribers are taken when the event is published (a copy of the channel's set, once per
 * event): one who subscribes meanwhile does not get it, one who leaves meanwhile is skipped by its
 * closed socket or ignores an event of a channel it left. The loop over the sockets allocates
 * nothing.
 */
export class SlicedDelivery {
  private readonly pending: Pending[] = [];
  private scheduled = false;

  constructor(private readonly sliceMs = SLICE_MS) {}

  /** Events published and not yet written to all their subscribers. */
  get backlog(): number {
    return this.pending.length;
  }

  deliver(frame: Buffer, subscribers: Iterable<FrameTarget>, exceptSocketId?: string): void {
    this.pending.push({ frame, targets: Array.from(subscribers), exceptSocketId, next: 0 });
    // Alone in the queue: nothing is under way (nor running, should a write call back here).
    if (this.pending.length === 1 && !this.scheduled) this.run();
  }

  /** Writes sockets for up to a slice of time, oldest event first, then comes back in the next turn if any is left. */
  private readonly run = (): void => {
    this.scheduled = false;
    const until = performance.now() + this.sliceMs;
    let sinceClock = 0;
    while (this.pending.length > 0) {
      const head = this.pending[0];
      const { frame, targets, exceptSocketId } = head;
      let i = head.next;
      for (; i < targets.length; i++) {
        const target = targets[i];
        if (target.id !== exceptSocketId) target.sendFrame(frame);
        if (++sinceClock === CLOCK_EVERY) {
          sinceClock = 0;
          if (performance.now() >= until) break;
        }
      }
      if (i < targets.length) {
        head.next = i + 1;
        if (head.next === targets.length) this.pending.shift();
        break;
      }
      this.pending.shift();
      // Many small events behind one another are a slice too.
      if (++sinceClock >= CLOCK_EVERY) {
        sinceClock = 0;
        if (performance.now() >= until) break;
      }
    }
    if (this.pending.length > 0) {
      this.scheduled = true;
      setImmediate(this.run);
    }
  };
}
