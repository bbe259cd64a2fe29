import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Logger } from '../logger';
import type { DrawRecord, EventFactsJson, QueueInfo, QueueOpened } from '@waiting-room/streams/contract';
import type { Clock } from '../clock';
import { estimateMinutes } from '../estimate';
import { DomainError } from '../errors';
import type { EventLimits } from '../policy';
import type { EventState, StoredEvents } from '../../store/event-store';
import type { Entry, Position, QueueStore } from '../../store/types';
import { commitmentOf, drawKey, newSeed, ticketOf } from './draw';
import { beginsAt, checkNoOverlap, EventError, phaseOf, readEventFields, slugOf, timeOf, type DropEvent, type EventFields, type EventPhase } from './event';
import { PlaceSteps } from './place-steps';

/** The event a room follows now: in its pre-queue, or open until its end. */
export interface EventInForce {
  readonly event: DropEvent;
  readonly phase: 'prequeue' | 'open';
  readonly state: EventState;
}

/** Tells the pages of a pre-queue that it has opened (`QueueOpened` on `CHANNELS.event(id)`). */
export interface OpeningAnnouncer {
  publishOpened(id: string, opened: QueueOpened): Promise<void>;
}

/** What a protected request meets: the line as usual, held whatever the room's state, let through, or the sale closed. */
export type EventAdmission = 'line' | 'hold' | 'pass' | 'closed';

/** What the release loop may do: release as the policy allows, nobody, or everyone waiting. */
export type ReleaseMode = 'normal' | 'none' | 'all';

/** An event as the admin API lists it: its fields, its room and where it stands. */
export interface EventStatus extends DropEvent {
  readonly room: string;
  readonly phase: EventPhase;
  /** The pre-queue's places still in line (null before it began). */
  readonly entrants: number | null;
  readonly commitment: string | null;
  readonly drawn: boolean;
}

/** The public draw of an event, or why there is none to show. */
export type DrawAnswer =
  | { readonly kind: 'unknown' }
  | { readonly kind: 'unshuffled' }
  | { readonly kind: 'not_started'; readonly at: string }
  | { readonly kind: 'pending'; readonly record: DrawRecord }
  | { readonly kind: 'drawn'; readonly json: string; readonly gzip: Buffer };

export interface ScheduleOptions {
  readonly room: string;
  readonly store: QueueStore;
  readonly clock: Clock;
  readonly log: Logger;
  /** Polls a second the opening may add: the pre-queue's pages ask for their position within `entrants / this` s. */
  readonly openingPollsPerSecond: number;
  /** Most events the room keeps, ended ones included (MAX_EVENTS_PER_ROOM). */
  readonly maxEvents: number;
  /** How openings are announced. */
  readonly announcer: OpeningAnnouncer;
}

/** Changes to an event after its pre-queue (or opening) has begun that would break its promise. */
const LOCKED_ONCE_BEGUN = ['prequeueStartTime', 'eventStartTime', 'shuffleAtEventStart'] as const;

/** Entrants keyed in one page (`unkeyedEntrants`, then `addDrawKeys`, which moves each to its draw slot): about 10 ms of Redis. */
export const KEY_PAGE = 1000;

/** How often a save of the events is tried again when another instance changed them meanwhile. */
const SAVE_ATTEMPTS = 5;

/**
 * A room's scheduled events at run time. It reads them from the store on every tick of the
 * release loop (`step`), so that every instance follows an event made or changed on another
 * within a tick, and takes the transitions that are due, each one atomic and taken once in the
 * store whichever instance gets there first:
 * - at the start of the pre-queue, the seed (for a shuffled event) and the last ticket given
 *   before it; from then on every protected request is held and nobody is admitted;
 * - at the opening, the last ticket given (entrants frozen), then the draw computed here (the
 *   store cannot hash) and applied once; then one `QueueOpened` on the event's channel.
 * A restart in the middle, on any instance, goes on from what the store holds.
 */
export class EventSchedule {
  private kept: StoredEvents = { version: 0, events: [] };
  /** Each event with its times parsed once, for the questions every request asks (`inForce`). */
  private timeline: ReadonlyArray<{ readonly event: DropEvent; readonly begins: number; readonly opens: number; readonly ends: number }> = [];
  private readonly states = new Map<string, EventState>();
  /** The places in line, as last read while an event is in force: what a pre-queued position can at most be. */
  private counts = { waiting: 0 };
  private stepping?: Promise<void>;
  /** The draw's work under way on this instance (its keys, or its steps), one at a time, not awaited by the requests. */
  private drawing?: Promise<void>;
  private nextDrawing?: () => Promise<void>;
  private readonly drawn = new Map<string, Promise<DrawAnswer>>();

  constructor(private readonly options: ScheduleOptions) {}

  /** The room's events, as last read. */
  get events(): readonly DropEvent[] {
    return this.stored.events;
  }

  /** The event in force at `now`, from what this instance last read (within a tick). */
  inForce(now: number): EventInForce | undefined {
    for (const { event, begins, opens, ends } of this.timeline) {
      if (now >= begins && now < ends) return { event, phase: now >= opens ? 'open' : 'prequeue', state: this.states.get(event.id) ?? {} };
    }
    return undefined;
  }

  /** The room's events as kept, as this instance last read or wrote them. */
  private get stored(): StoredEvents {
    return this.kept;
  }

  private set stored(stored: StoredEvents) {
    this.kept = stored;
    this.timeline = stored.events.map((event) => ({ event, begins: beginsAt(event), opens: timeOf(event.eventStartTime), ends: timeOf(event.eventEndTime) }));
  }

  /**
   * Reads the events from the store and takes the transitions due now; run by every tick of the
   * release loop, and by a request that meets a transition not yet taken. Calls under way are shared.
   */
  step(): Promise<void> {
    this.stepping ??= this.run().finally(() => {
      this.stepping = undefined;
    });
    return this.stepping;
  }

  /**
   * The event in force at `now`, once the transitions it needs before a visitor is held or
   * answered are taken: the pre-queue's start, and the opening's freeze (the draw may still be
   * under way: those who arrive meanwhile queue behind the entrants all the same).
   */
  async ready(now: number): Promise<EventInForce | undefined> {
    const current = this.inForce(now);
    if (!current) return undefined;
    const { event, phase, state } = current;
    const due = (event.prequeueStartTime !== null && state.afterTicket === undefined) || (phase === 'open' && state.openTicket === undefined);
    if (!due) return current;
    await this.step();
    return this.inForce(now);
  }

  /** What a protected request of the room meets at `now`. */
  async admission(now: number): Promise<EventAdmission> {
    const current = await this.ready(now);
    if (!current) return 'line';
    if (current.phase === 'prequeue') return 'hold';
    const method = current.event.queueingMethod;
    return method === 'passthrough' ? 'pass' : method === 'reject' ? 'closed' : 'line';
  }

  /**
   * True while a pre-queue holds the line, before its opening. While a draw is placed, releases
   * go on, up to the last entrant placed (`limits`' `drawing`).
   */
  holdsLine(now: number): boolean {
    return this.inForce(now)?.phase === 'prequeue';
  }

  /** What the release loop may release at `now`: nobody before the opening or while the sale is closed. */
  releaseMode(now: number): ReleaseMode {
    const current = this.inForce(now);
    if (!current) return 'normal';
    if (current.phase === 'prequeue') return 'none';
    const method = current.event.queueingMethod;
    return method === 'passthrough' ? 'all' : method === 'reject' ? 'none' : 'normal';
  }

  /** What the event in force replaces in the room's policy at `now` (`policy.ts`). */
  limits(now: number): EventLimits {
    const current = this.inForce(now);
    if (current?.phase !== 'open') return {};
    const { activeLimit, releasePerMinute, queueingMethod } = current.event;
    return {
      ...(this.prequeued(current) && { drawing: current.event.id }),
      ...(activeLimit !== null && { activeLimit }),
      ...(releasePerMinute !== null && { perMinute: releasePerMinute }),
      ...(queueingMethod === 'random' && { random: true }),
    };
  }

  /**
   * queue_info's answer for a place in a pre-queue (or whose draw is under way): no position yet,
   * but when the sale opens (`opensIn`), and as `position` the most it can be once drawn, never 0.
   * With the `random` queueing, the places in line (any of them may be drawn first). Undefined for
   * any other place: the position is the rank in line.
   */
  answerFor(place: Position, now: number, perMinute: number): QueueInfo | undefined {
    const current = this.inForce(now);
    if (!current || place.position === 0) return undefined;
    const waiting = Math.max(place.position, this.counts.waiting);
    if (this.prequeued(current) && this.isEntrant(current.state, place.ticket)) {
      const opensIn = Math.max(0, timeOf(current.event.eventStartTime) - now);
      return { position: waiting, estimated: Math.ceil(opensIn / 60_000) + estimateMinutes(waiting, [], now, perMinute), opensIn };
    }
    if (current.phase === 'open' && current.event.queueingMethod === 'random') {
      return { position: waiting, estimated: estimateMinutes(waiting, [], now, perMinute) };
    }
    return undefined;
  }

  /**
   * What a held visitor's page config says of the event (`PageConfigJson.event`), with the position
   * it shows (an upper bound while there is none yet). Nothing for a place that is no entrant.
   */
  pageFacts(entry: Entry, position: number, now: number): { readonly position: number; readonly event?: EventFactsJson } {
    const current = this.inForce(now);
    if (!current || entry.state !== 'waiting' || !this.isEntrant(current.state, entry.ticket)) return { position };
    const { event, state } = current;
    return {
      position: this.prequeued(current) ? Math.max(1, position, this.counts.waiting) : position,
      event: {
        id: event.id,
        name: event.name,
        opensAt: event.eventStartTime,
        shuffle: event.shuffleAtEventStart,
        ...(state.seed !== undefined && { commitment: commitmentOf(state.seed) }),
      },
    };
  }

  /** The public draw of event `id` (`GET /events/{id}/draw`). */
  async draw(id: string): Promise<DrawAnswer> {
    const event = this.stored.events.find((each) => each.id === id);
    if (!event) return { kind: 'unknown' };
    if (!event.shuffleAtEventStart) return { kind: 'unshuffled' };
    const known = this.drawn.get(id);
    if (known) return known;
    const { store } = this.options;
    const state = await store.eventState(id);
    if (state.seed === undefined) return { kind: 'not_started', at: event.prequeueStartTime as string };
    const about = { event: id, name: event.name, prequeueStartTime: event.prequeueStartTime, eventStartTime: event.eventStartTime };
    if (!state.drawn) {
      const entrants = await this.entrantCount(state);
      return { kind: 'pending', record: { ...about, commitment: commitmentOf(state.seed), entrants } };
    }
    // Drawn: it never changes again, so each instance builds the answer once.
    const seed = state.seed;
    const answer = store.entrantsOf(id).then((uuids): DrawAnswer => {
      const order = uuids.map(ticketOf);
      const json = JSON.stringify({ ...about, commitment: commitmentOf(seed), entrants: order.length, seed, order });
      return { kind: 'drawn', json, gzip: gzipSync(json) };
    });
    this.drawn.set(id, answer);
    answer.catch(() => this.drawn.delete(id));
    return answer;
  }

  /** The room's `events` (all of them by default) with where each stands at `now`, for the admin API. */
  async statuses(now: number, events: readonly DropEvent[] = this.stored.events): Promise<EventStatus[]> {
    const { store, room } = this.options;
    return Promise.all(
      events.map(async (event) => {
        const state = await store.eventState(event.id);
        const begun = state.afterTicket !== undefined;
        return {
          ...event,
          room,
          phase: phaseOf(event, now),
          entrants: begun ? await this.entrantCount(state) : null,
          commitment: state.seed === undefined ? null : commitmentOf(state.seed),
          drawn: state.drawn === true,
        };
      }),
    );
  }

  /**
   * Creates an event (the admin API's POST): checked against the others of the room, kept in the
   * store. A room keeps at most `maxEvents` (409 `too_many_events`): every event is read on every
   * tick and listed by the admin API, so their number is bounded.
   */
  async create(fields: EventFields): Promise<DropEvent> {
    const event: DropEvent = { id: newEventId(fields.name), ...fields };
    await this.change((events) => {
      this.checkRoomFor(events);
      this.checkNotOver(event);
      checkNoOverlap(event, events);
      return [...events, event];
    });
    return event;
  }

  /**
   * Changes an event (PATCH): `change` is merged onto it and checked whole again; null clears an
   * optional field. Once its pre-queue (or opening) has begun, its start and its shuffle are fixed:
   * the visitors in it were promised them (409 `event_begun`).
   */
  async update(id: string, change: Partial<Record<keyof EventFields, unknown>>): Promise<DropEvent> {
    let updated: DropEvent | undefined;
    await this.change((events) => {
      const current = this.find(events, id);
      const { id: _id, ...fields } = current;
      const next: DropEvent = { id, ...readEventFields({ ...fields, ...change }) };
      if (phaseOf(current, this.options.clock.now()) !== 'scheduled') {
        const changed = LOCKED_ONCE_BEGUN.find((field) => next[field] !== current[field]);
        if (changed) throw new DomainError('conflict', 'event_begun', `The event has begun: "${changed}" can no longer change.`);
      }
      checkNoOverlap(next, events);
      updated = next;
      return events.map((event) => (event.id === id ? next : event));
    });
    return updated as DropEvent;
  }

  /**
   * Deletes an event (DELETE), with its state and its draw; the line goes on under the room's own
   * settings. An event whose pre-queue still has entrants in line is deleted only when
   * `confirmed` (409 `event_has_entrants` otherwise): they were promised an opening and, shuffled,
   * a draw. Deleted, they keep their places in the room's line: in their order of arrival, or the
   * draw's once drawn.
   */
  async remove(id: string, confirmed = false): Promise<void> {
    const entrants = await this.entrantCount(await this.options.store.eventState(id));
    if (entrants > 0 && !confirmed) {
      throw new DomainError(
        'conflict',
        'event_has_entrants',
        `The event has ${entrants} entrant${entrants === 1 ? '' : 's'} in line. Deleted, they keep their places in the room's line (in their order of arrival, or the draw's once drawn), ` +
          "under the room's own settings, and its draw is no longer published: send ?confirm=entrants to delete it all the same.",
      );
    }
    await this.change((events) => {
      this.find(events, id);
      return events.filter((event) => event.id !== id);
    });
    await this.options.store.forgetEvent(id);
    this.states.delete(id);
    this.drawn.delete(id);
  }

  /**
   * Puts the configuration's events in the store, each the first time a server starts with it
   * (by id): after that the store's copy is the one in force, changed through the admin API. One
   * that overlaps an event already kept is left out, with a warning.
   */
  async declare(declared: readonly DropEvent[]): Promise<void> {
    if (declared.length === 0) return;
    await this.change((events) => {
      const next = [...events];
      for (const event of declared) {
        if (next.some((each) => each.id === event.id)) continue;
        try {
          this.checkRoomFor(next);
          checkNoOverlap(event, next);
          next.push(event);
        } catch (error) {
          this.options.log.warn({ event: event.id, room: this.options.room }, `declared event left out: ${(error as Error).message}`);
        }
      }
      return next;
    });
  }

  private async run(): Promise<void> {
    const { store, clock } = this.options;
    this.stored = await store.events();
    const now = clock.now();
    const current = this.inForce(now);
    if (!current) return;
    const { event, phase } = current;
    let state = await store.eventState(event.id);
    if (event.prequeueStartTime !== null && state.afterTicket === undefined) {
      state = await store.startPrequeue(event.id, event.shuffleAtEventStart ? newSeed() : null);
      this.options.log.info({ event: event.id, room: this.options.room }, 'pre-queue started');
    }
    if (phase === 'prequeue' && state.seed !== undefined) this.inBackground(() => this.keyEntrants(event.id, state.seed as string));
    if (phase === 'open') {
      if (state.openTicket === undefined) state = await store.openEvent(event.id);
      if (event.shuffleAtEventStart && !state.drawn) {
        const opened = state;
        this.inBackground(() => this.placeDraw(event, opened));
      }
      if (event.prequeueStartTime !== null && !state.announced && (state.drawn || !event.shuffleAtEventStart)) await this.announce(event, state);
    }
    this.states.set(event.id, state);
    this.counts = { waiting: (await store.stats(now)).waiting };
  }

  /**
   * Runs the draw's `work` now, or right after the work under way (the latest asked for waits, in
   * place of any other); a failure is logged, and the next tick asks again.
   */
  private inBackground(work: () => Promise<void>): void {
    if (this.drawing) {
      this.nextDrawing = work;
      return;
    }
    this.drawing = work()
      .catch((error: unknown) => this.options.log.warn({ err: error, room: this.options.room }, 'the draw could not go on: the next tick takes it up'))
      .finally(() => {
        this.drawing = undefined;
        const next = this.nextDrawing;
        this.nextDrawing = undefined;
        if (next) this.inBackground(next);
      });
  }

  /**
   * Computes the draw keys of the entrants not keyed yet, a page at a time, until none is left (to
   * the opening's ticket once open). Run on every tick of the pre-queue, so that the opening finds
   * only the last second's arrivals to key.
   */
  private async keyEntrants(id: string, seed: string): Promise<void> {
    const { store } = this.options;
    for (;;) {
      const { uuids, mark } = await store.unkeyedEntrants(id, KEY_PAGE);
      await store.addDrawKeys(
        id,
        uuids.map((uuid) => ({ uuid, key: drawKey(seed, uuid) })),
        mark,
      );
      if (uuids.length < KEY_PAGE) return;
      // The keys are computed here: leave the requests their turn between pages.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Places the draw in steps, each a short call of the store, the first releases following the
   * first steps (`limits`' `drawing`); then marks this instance's state drawn and announces the
   * opening. Any instance may run it, several at once, and one that stops leaves the next to go on.
   */
  private async placeDraw(event: DropEvent, state: EventState): Promise<void> {
    const { store, log, room } = this.options;
    if (state.seed === undefined) {
      // A shuffled event's pre-queue always keeps a seed; without one its places stay in arrival order.
      log.error({ event: event.id, room }, 'a shuffled event has no seed: its pre-queue keeps its order of arrival');
      return;
    }
    const started = performance.now();
    const sizes = new PlaceSteps();
    let placed = 0;
    for (;;) {
      // Two steps in flight: Redis runs the second as soon as the first is done, each going on
      // from what the store holds, instead of waiting a round trip between them.
      const size = sizes.size;
      const sent = performance.now();
      const steps = await Promise.all([store.placeDrawn(event.id, size), store.placeDrawn(event.id, size)]);
      if (steps.includes(undefined)) {
        await this.keyEntrants(event.id, state.seed);
        continue;
      }
      sizes.took(steps.length, performance.now() - sent);
      placed += steps.reduce((sum, step) => sum + (step?.placed ?? 0), 0);
      if (steps.some((step) => step?.done)) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    log.info({ event: event.id, room, placed, ms: Math.round(performance.now() - started) }, 'pre-queue drawn');
    const drawn = await store.eventState(event.id);
    this.states.set(event.id, drawn);
    if (event.prequeueStartTime !== null && !drawn.announced) await this.announce(event, drawn);
  }

  /** One `QueueOpened` for the whole pre-queue, by the instance that claims it; a failure leaves the pages to their polls. */
  private async announce(event: DropEvent, state: EventState): Promise<void> {
    if (!(await this.options.store.claimAnnouncement(event.id))) return;
    const entrants = await this.entrantCount(state);
    const spread = Math.ceil((entrants * 1000) / this.options.openingPollsPerSecond);
    try {
      await this.options.announcer.publishOpened(event.id, { spread });
    } catch (error) {
      this.options.log.warn({ err: error, event: event.id }, 'the opening could not be announced: pages will see it at their next poll');
    }
  }

  /** The places of a pre-queue still in line: a ticket in (afterTicket, openTicket]. */
  private async entrantCount(state: EventState): Promise<number> {
    const { store } = this.options;
    if (state.afterTicket === undefined) return 0;
    const after = await store.countAfter(state.afterTicket);
    return state.openTicket === undefined ? after : after - (await store.countAfter(state.openTicket));
  }

  /** True while the places of the pre-queue have no position yet: before the opening, and until a shuffled one is drawn. */
  private prequeued({ event, phase, state }: EventInForce): boolean {
    return phase === 'prequeue' || (event.shuffleAtEventStart && !state.drawn);
  }

  private isEntrant(state: EventState, ticket: number): boolean {
    return state.afterTicket !== undefined && ticket > state.afterTicket && (state.openTicket === undefined || ticket <= state.openTicket);
  }

  private checkRoomFor(events: readonly DropEvent[]): void {
    const { maxEvents, room } = this.options;
    if (events.length < maxEvents) return;
    throw new DomainError(
      'conflict',
      'too_many_events',
      `The room "${room}" has ${events.length} events, the most it keeps (MAX_EVENTS_PER_ROOM): delete one first, an ended one say.`,
    );
  }

  private checkNotOver(event: DropEvent): void {
    if (timeOf(event.eventEndTime) <= this.options.clock.now()) throw new EventError('event_over', 'The event would end before now.');
  }

  private find(events: readonly DropEvent[], id: string): DropEvent {
    const event = events.find((each) => each.id === id);
    if (!event) throw new DomainError('not_found', 'unknown_event', 'There is no event with this id.');
    return event;
  }

  /** Applies `next` to the events as kept, compare-and-set, again when another instance changed them first. */
  private async change(next: (events: readonly DropEvent[]) => DropEvent[]): Promise<void> {
    const { store } = this.options;
    for (let attempt = 0; attempt < SAVE_ATTEMPTS; attempt++) {
      const kept = await store.events();
      const events = next(kept.events);
      if (await store.saveEvents(kept.version, events)) {
        this.stored = { version: kept.version + 1, events };
        return;
      }
    }
    throw new DomainError('busy', 'events_busy', 'The events were changed elsewhere at the same time; try again.', 1);
  }
}

/** A new event's id: its name's first words, and random hex so that two events of one name differ. */
function newEventId(name: string): string {
  return `${slugOf(name, 40)}-${randomBytes(3).toString('hex')}`;
}
