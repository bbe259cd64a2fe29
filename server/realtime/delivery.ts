import { performance } from 'node:perf_hooks';

/** What a delivery writes to: one subscriber's socket (`Connection`). */
export interface FrameTarget {
  readonly id: string;
  sendFrame(frame: Buffer): void;
}

/**
 * What one event's delivery took, on the server's own clock (`performance.now()`, ms): from its
 * publication to the write of its last socket is how long the last subscriber waited on the server.
 */
export interface Delivered {
  /** Sockets written (the subscribers when it was published, less the one left out). */
  readonly sockets: number;
  readonly publishedAt: number;
  /** When its first socket was written: before that, it waited behind earlier events. */
  readonly firstWriteAt: number;
  readonly lastWriteAt: number;
  /** Time spent writing its sockets, the slices' share that was its own (the rest of the time, the event loop did other work). */
  readonly writingMs: number;
  /** A newer event with the same key came before it reached every subscriber (`DeliverOptions.latestOf`): it stopped there. */
  readonly superseded: boolean;
}

export interface DeliverOptions {
  /** The socket that caused the event: left out. */
  readonly exceptSocketId?: string;
  /** Hears what the delivery took once it is over. */
  readonly done?: DeliveredListener;
  /**
   * Events with the same key where only the latest matters (a line-wide state each event carries
   * whole, such as `QueueMoved`'s `served`): a newer one supersedes an older one still queued, which
   * is then not written at all, or under way, which stops where it is; the subscribers it had not
   * reached get only the newer one. So a burst of them never queues up behind itself.
   */
  readonly latestOf?: string;
}

/** Told of each event once it has been written to all its subscribers. */
export type DeliveredListener = (delivered: Delivered) => void;

/** One channel event on its way: the frame, the subscribers when it was published, and how far it got. */
interface Pending {
  readonly frame: Buffer;
  readonly targets: readonly FrameTarget[];
  readonly exceptSocketId: string | undefined;
  readonly publishedAt: number;
  readonly done: DeliveredListener | undefined;
  readonly latestOf: string | undefined;
  superseded: boolean;
  next: number;
  written: number;
  firstWriteAt: number;
  writingMs: number;
}

/** The clock slices are cut by (ms); tests give their own. */
export type SliceClock = () => number;

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
 *
 * An event may supersede the older ones of its kind (`DeliverOptions.latestOf`): each socket still
 * gets its events in publishing order, only without those a newer one made pointless.
 */
export class SlicedDelivery {
  private readonly pending: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly sliceMs = SLICE_MS,
    private readonly now: SliceClock = () => performance.now(),
  ) {}

  /** Events published and not yet written to all their subscribers. */
  get backlog(): number {
    return this.pending.length;
  }

  /** Queues `frame` for `subscribers`, after every event published before it (see `DeliverOptions`). */
  deliver(frame: Buffer, subscribers: Iterable<FrameTarget>, options: DeliverOptions = {}): void {
    const { exceptSocketId, done, latestOf } = options;
    if (latestOf !== undefined) this.supersede(latestOf);
    const publishedAt = done ? this.now() : 0;
    this.pending.push({
      frame,
      targets: Array.from(subscribers),
      exceptSocketId,
      publishedAt,
      done,
      latestOf,
      superseded: false,
      next: 0,
      written: 0,
      firstWriteAt: 0,
      writingMs: 0,
    });
    // Alone in the queue: nothing is under way (nor running, should a write call back here).
    if (this.pending.length === 1 && !this.scheduled) this.run();
  }

  /**
   * Drops the queued events of `key`; the one under way (the first) is marked, and stops at the
   * next look at the clock, or at once if no slice is running.
   */
  private supersede(key: string): void {
    for (let index = this.pending.length - 1; index >= 0; index--) {
      const older = this.pending[index];
      if (older.latestOf !== key || older.superseded) continue;
      older.superseded = true;
      if (index > 0) {
        this.pending.splice(index, 1);
        this.finished(older);
      }
    }
  }

  /** Writes sockets for up to a slice of time, oldest event first, then comes back in the next turn if any is left. */
  private readonly run = (): void => {
    this.scheduled = false;
    const until = this.now() + this.sliceMs;
    let sinceClock = 0;
    while (this.pending.length > 0) {
      const head = this.pending[0];
      const { frame, targets, exceptSocketId } = head;
      const began = head.done ? this.now() : 0;
      if (head.done && head.next === 0) head.firstWriteAt = began;
      let i = head.next;
      let written = 0;
      let spent = false;
      while (i < targets.length && !head.superseded) {
        const target = targets[i++];
        if (target.id !== exceptSocketId) {
          target.sendFrame(frame);
          written++;
        }
        if (++sinceClock === CLOCK_EVERY) {
          sinceClock = 0;
          if (this.now() >= until) {
            spent = true;
            break;
          }
        }
      }
      head.written += written;
      if (head.done) head.writingMs += this.now() - began;
      if (i < targets.length && !head.superseded) {
        head.next = i;
        break;
      }
      this.pending.shift();
      this.finished(head);
      if (spent) break;
      // Many small events behind one another are a slice too.
      if (++sinceClock >= CLOCK_EVERY) {
        sinceClock = 0;
        if (this.now() >= until) break;
      }
    }
    if (this.pending.length > 0) {
      this.scheduled = true;
      setImmediate(this.run);
    }
  };

  private finished(event: Pending): void {
    if (!event.done) return;
    const { written: sockets, publishedAt, firstWriteAt, writingMs, superseded } = event;
    event.done({ sockets, publishedAt, firstWriteAt, lastWriteAt: this.now(), writingMs, superseded });
  }
}
