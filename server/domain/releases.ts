import type { Logger } from './logger';
import type { Clock } from './clock';
import { DomainError } from './errors';
import type { EventSchedule } from './events/schedule';
import type { ReleasePublisher } from './release-publisher';
import type { ReportRecorder } from './report/recorder';
import type { OperatorLimits, RoomPolicy } from './room-policy';
import type { Entry, QueueStore, Release, ReleasePolicy } from '../store/types';

/** What `Releases` tells the metrics (`metrics/metrics.ts`). */
export interface ReleaseMeter {
  released(room: string, count: number): void;
  /** A release event accepted by the realtime server `ms` after the release. */
  delivered(room: string, ms: number): void;
  walkedAway(room: string, count: number): void;
}

const NO_METER: ReleaseMeter = { released() {}, delivered() {}, walkedAway() {} };

/** Most visitors one step lets through while a `passthrough` event runs (the limits do not count then). */
const PASSTHROUGH_BATCH = 1000;

/** What a room's `Releases` works with, all given at construction. */
export interface ReleasesParts {
  /** The room's name, for the metrics. */
  readonly room: string;
  readonly store: QueueStore;
  readonly clock: Clock;
  readonly log: Logger;
  /** The policy in force (`room-policy.ts`). */
  readonly policy: Pick<RoomPolicy, 'current'>;
  /** The operator's limits, read again at each step so that every instance follows a change. */
  readonly operator: Pick<OperatorLimits, 'follow'>;
  /** The room's events: nobody is let in while a pre-queue waits for its opening. */
  readonly events: Pick<EventSchedule, 'releaseMode' | 'holdsLine'>;
  readonly publisher: ReleasePublisher;
  /** The room's own public line-wide channel: its moves go there, and reach its pages only. */
  readonly queueChannel: string;
  readonly meter?: ReleaseMeter;
  /** The room's report: told of every release, not waited for. */
  readonly report?: Pick<ReportRecorder, 'released'>;
}

/**
 * Releases visitors from the store and tells each page. Every release goes through here:
 * the release loop, the admin API, and the re-sent event of queue_request.
 */
export class Releases {
  private readonly meter: ReleaseMeter;

  constructor(private readonly parts: ReleasesParts) {
    this.meter = parts.meter ?? NO_METER;
  }

  /** The policy in force (`policy.ts`). */
  get policy(): ReleasePolicy {
    return this.parts.policy.current;
  }

  /**
   * The release loop's step: as many as the limits, the rate and the pause allow now (while a
   * draw is placed, up to its last entrant placed); nobody while an event's pre-queue waits for
   * its opening or a sale is closed, and
   * everyone waiting, a batch a step, while a `passthrough` event runs.
   */
  async releaseDue(): Promise<Entry[]> {
    const { operator, events, store, clock } = this.parts;
    await operator.follow();
    const mode = events.releaseMode(clock.now());
    if (mode === 'none') return [];
    if (mode === 'all') return this.releaseNext(PASSTHROUGH_BATCH);
    const release = await store.releaseDue(clock.now(), this.policy);
    void this.parts.report?.released(release.released);
    await this.announceAll(release);
    return release.released;
  }

  /**
   * A replay came for `uuid`, which waits: gives it its release again if a failover undid it
   * (`QueueStore.releaseAgain`), told as any release is, so that the replay goes on rather than
   * being refused. Its entry once released, or undefined.
   */
  async releaseAgain(uuid: string): Promise<Entry | undefined> {
    const { store, clock } = this.parts;
    const release = await store.releaseAgain(uuid, clock.now(), this.policy);
    if (!release) return undefined;
    void this.parts.report?.released(release.released);
    await this.announceAll(release);
    return release.released.find((entry) => entry.uuid === uuid);
  }

  /**
   * The release loop's sweep, every tick whatever the room's state: drops the visitors silent for
   * longer than the abandon time wherever they are in line, so that those behind move up while
   * the room is full or paused too. Nothing is published: `served` counts only the places that
   * left the head, so it does not change, and each page reads its new position on its next poll.
   */
  async dropAbandoned(): Promise<number> {
    const dropped = await this.parts.store.dropAbandoned(this.parts.clock.now(), this.policy.abandonMs);
    this.meter.walkedAway(this.parts.room, dropped);
    return dropped;
  }

  /**
   * Releases the next `count` now, whatever the limits; `silent` publishes nothing, neither the
   * release events nor the move of the line (it stands for a lost event path).
   */
  async releaseNext(count: number, silent = false): Promise<Entry[]> {
    const { events, store, clock, room } = this.parts;
    if (events.holdsLine(clock.now())) {
      throw new DomainError('conflict', 'event_prequeue', 'The event has not opened yet: nobody is let in before.');
    }
    const release = await store.release(count, clock.now(), this.policy);
    void this.parts.report?.released(release.released);
    if (!silent) await this.announceAll(release);
    else this.meter.released(room, release.released.length);
    return release.released;
  }

  /**
   * Tells the page a place left for another browser (`entry`: the place as it was, its old uuid)
   * to stop following it. A failure is logged, not thrown: that page learns it from its next
   * queue_info, and nothing of the place is left for it to replay.
   */
  async announceHandedOff(entry: Pick<Entry, 'uuid' | 'userId'>): Promise<void> {
    try {
      await this.parts.publisher.publishHandedOff?.(entry);
    } catch (error) {
      this.parts.log.warn({ err: error, uuid: entry.uuid }, 'handoff event could not be published');
    }
  }

  /**
   * Publishes the release event for one visitor. A failure is logged, not thrown: the page
   * still learns of the release from queue_info, and queue_request sends the event again.
   */
  async announce(entry: Pick<Entry, 'uuid' | 'userId'>): Promise<boolean> {
    try {
      await this.parts.publisher.publishRelease(entry);
      return true;
    } catch (error) {
      this.parts.log.warn({ err: error, uuid: entry.uuid }, 'release event could not be published');
      return false;
    }
  }

  /**
   * Publishes the release events, then, when the store says this step is the one to tell it
   * (`Release.moved`: at most once a second line-wide, however many instances release), one
   * `QueueMoved` for the whole line, on the room's own channel, with the store's `served` right after this release. The released
   * visitors come first: their replay is what waits on the event, while the others only see a
   * position sooner.
   *
   * `served` counts the places that have left the head, line-wide, so each waiting visitor has
   * moved up by at least its growth since their last answer, whose `ticket` is `served + position`:
   * the page shows `ticket - served`, never ahead of the truth. It only grows, so moves published by
   * several instances may arrive in any order (a page keeps the largest). Places that went from the
   * middle (walked away) are not in it: those behind learn of them from their next poll, which a
   * page accepts, as it accepts any smaller position.
   */
  private async announceAll({ released, served, moved }: Release): Promise<void> {
    const { room, clock } = this.parts;
    this.meter.released(room, released.length);
    await Promise.all(
      released.map(async (entry) => {
        if ((await this.announce(entry)) && entry.releasedAt !== undefined) {
          this.meter.delivered(room, clock.now() - entry.releasedAt);
        }
      }),
    );
    if (moved) await this.announceMove(served);
  }

  /** Publishes `QueueMoved`; a failure is logged, not thrown: the pages' polls still move them. */
  private async announceMove(served: number): Promise<void> {
    try {
      await this.parts.publisher.publishMoved(this.parts.queueChannel, served);
    } catch (error) {
      this.parts.log.warn({ err: error, served }, 'line move could not be published');
    }
  }
}
