import type { FastifyBaseLogger } from 'fastify';
import type { Admission } from './admission/admission';
import type { Clock } from './clock';
import { HttpError } from './errors';
import type { EventSchedule } from './events/schedule';
import { policyInForce, type EventLimits } from './limits';
import type { ReleasePublisher } from './publish';
import type { Entry, LimitChange, LimitOverrides, QueueStore, Release, ReleasePolicy } from './store/types';

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

/**
 * Releases visitors from the store and tells each page. Every release goes through here:
 * the release loop, the admin API, and the re-sent event of queue_request.
 */
export class Releases {
  private publisher?: ReleasePublisher;
  private current: ReleasePolicy;
  private overrides: LimitOverrides = {};
  private admission?: Pick<Admission, 'policy'>;
  private events?: Pick<EventSchedule, 'limits' | 'releaseMode' | 'holdsLine'>;
  /** The operated policy while an event runs, kept while neither it nor the operator's changes. */
  private duringEvent?: { readonly base: ReleasePolicy; readonly event: EventLimits; readonly policy: ReleasePolicy };

  constructor(
    private readonly store: QueueStore,
    private readonly clock: Clock,
    /** The policy the configuration sets; the operator's limits, kept in the store, replace its fields. */
    readonly configured: ReleasePolicy,
    private readonly log: FastifyBaseLogger,
    /**
     * Whether this line's moves go out as `QueueMoved` on the one line-wide channel: true for the
     * first room only (`rooms.ts`), since `served` counts one line and pages of every room hear it.
     */
    private readonly publishesMoves = true,
    /** The room's name, for the metrics. */
    private readonly room = 'default',
    private readonly meter: ReleaseMeter = NO_METER,
  ) {
    this.current = configured;
  }

  /** The room's events, whose limits replace the room's while one runs. */
  useEvents(events: Pick<EventSchedule, 'limits' | 'releaseMode' | 'holdsLine'>): void {
    this.events = events;
  }

  /**
   * The policy in force: the admission's (`admission/admission.ts`) once one is given, which starts
   * from `operated`; `operated` itself until then.
   */
  get policy(): ReleasePolicy {
    return this.admission?.policy() ?? this.operated;
  }

  /**
   * The operator's policy (`limits.ts`): the configured one with the operator's limits, as this
   * instance last read them, and those of an event while it runs. In force with fixed admission,
   * the ceilings of adaptive admission. The same object while nothing in it changes: adaptive
   * admission starts again from a new one.
   */
  get operated(): ReleasePolicy {
    const event = this.events?.limits(this.clock.now()) ?? {};
    if (Object.keys(event).length === 0) return this.current;
    const kept = this.duringEvent;
    if (kept?.base === this.current && sameEventLimits(kept.event, event)) return kept.policy;
    const policy = policyInForce(this.configured, this.overrides, event);
    this.duringEvent = { base: this.current, event, policy };
    return policy;
  }

  /** Sets what decides the policy in force from `operated` (made after this, since it reads it). */
  admitWith(admission: Pick<Admission, 'policy'>): void {
    this.admission = admission;
  }

  /** The operator's limits as this instance last read them (empty: the configured ones). */
  get limitOverrides(): LimitOverrides {
    return this.overrides;
  }

  /**
   * Reads the operator's limits from the store. The release loop does it every tick, so every
   * instance follows a change made on another within a tick; a restart finds them where the
   * line is kept.
   */
  async followLimits(): Promise<void> {
    this.apply(await this.store.limits());
  }

  /** Changes the operator's limits in the store (every instance follows) and here at once. */
  async changeLimits(change: LimitChange): Promise<LimitOverrides> {
    const overrides = await this.store.setLimits(change);
    this.apply(overrides);
    return overrides;
  }

  private apply(overrides: LimitOverrides): void {
    this.overrides = overrides;
    this.current = policyInForce(this.configured, overrides);
  }

  /** Sets how releases are announced; the embedded server's address is known only once listening. */
  usePublisher(publisher: ReleasePublisher): void {
    this.publisher = publisher;
  }

  /**
   * The release loop's step: as many as the limits, the rate and the pause allow now; nobody
   * while an event's pre-queue waits for its opening (or its draw) or a sale is closed, and
   * everyone waiting, a batch a step, while a `passthrough` event runs.
   */
  async releaseDue(): Promise<Entry[]> {
    await this.followLimits();
    const mode = this.events?.releaseMode(this.clock.now()) ?? 'normal';
    if (mode === 'none') return [];
    if (mode === 'all') return this.releaseNext(PASSTHROUGH_BATCH);
    const release = await this.store.releaseDue(this.clock.now(), this.policy);
    await this.announceAll(release);
    return release.released;
  }

  /**
   * The release loop's sweep, every tick whatever the room's state: drops the visitors silent for
   * longer than the abandon time wherever they are in line, so that those behind move up while
   * the room is full or paused too. Nothing is published: `served` counts only the places that
   * left the head, so it does not change, and each page reads its new position on its next poll.
   */
  async dropAbandoned(): Promise<number> {
    const dropped = await this.store.dropAbandoned(this.clock.now(), this.policy.abandonMs);
    this.meter.walkedAway(this.room, dropped);
    return dropped;
  }

  /**
   * Releases the next `count` now, whatever the limits; `silent` publishes nothing, neither the
   * release events nor the move of the line (it stands for a lost event path).
   */
  async releaseNext(count: number, silent = false): Promise<Entry[]> {
    if (this.events?.holdsLine(this.clock.now())) {
      throw new HttpError(409, 'event_prequeue', 'The event has not opened yet (or its draw is under way): nobody is let in before.');
    }
    const release = await this.store.release(count, this.clock.now(), this.policy);
    if (!silent) await this.announceAll(release);
    else this.meter.released(this.room, release.released.length);
    return release.released;
  }

  /**
   * Publishes the release event for one visitor. A failure is logged, not thrown: the page
   * still learns of the release from queue_info, and queue_request sends the event again.
   */
  async announce(entry: Pick<Entry, 'uuid' | 'userId'>): Promise<boolean> {
    if (!this.publisher) {
      this.log.warn({ uuid: entry.uuid }, 'release not announced: the server is not listening yet');
      return false;
    }
    try {
      await this.publisher.publishRelease(entry);
      return true;
    } catch (error) {
      this.log.warn({ err: error, uuid: entry.uuid }, 'release event could not be published');
      return false;
    }
  }

  /**
   * Publishes the release events, then, when the store says this step is the one to tell it
   * (`Release.moved`: at most once a second line-wide, however many instances release), one
   * `QueueMoved` for the whole line with the store's `served` right after this release. The released
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
    this.meter.released(this.room, released.length);
    await Promise.all(
      released.map(async (entry) => {
        if ((await this.announce(entry)) && entry.releasedAt !== undefined) {
          this.meter.delivered(this.room, this.clock.now() - entry.releasedAt);
        }
      }),
    );
    if (moved && this.publishesMoves) await this.announceMove(served);
  }

  /** Publishes `QueueMoved`; a failure is logged, not thrown: the pages' polls still move them. */
  private async announceMove(served: number): Promise<void> {
    try {
      await this.publisher?.publishMoved(served);
    } catch (error) {
      this.log.warn({ err: error, served }, 'line move could not be published');
    }
  }
}

const sameEventLimits = (a: EventLimits, b: EventLimits): boolean => a.activeLimit === b.activeLimit && a.perMinute === b.perMinute && a.random === b.random;
