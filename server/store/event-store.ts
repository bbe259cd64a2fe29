import type { DropEvent } from '../domain/events/event';

/** A room's events as kept, with the version the next `saveEvents` must name. */
export interface StoredEvents {
  readonly version: number;
  readonly events: readonly DropEvent[];
}

/**
 * Where one event's pre-queue and draw stand. Each field is set once, by whichever instance gets
 * there first, and never changes after: every instance, and a restart, go on from the same facts.
 */
export interface EventState {
  /** The draw's seed (64 hex digits), drawn at the start of the pre-queue of a shuffled event. */
  readonly seed?: string;
  /**
   * The last ticket given when the pre-queue began: the places with a larger ticket (up to
   * `openTicket`) are its entrants; those at or below it were in line before, and stay ahead.
   */
  readonly afterTicket?: number;
  /** The last ticket given at the opening: later arrivals queue behind the entrants. */
  readonly openTicket?: number;
  /** True once the draw has put every entrant in order in the line. */
  readonly drawn?: boolean;
  /** True once an instance has claimed the announcement of the opening (`QueueOpened`). */
  readonly announced?: boolean;
}

/** A page of an event's entrants whose draw keys are not kept yet (`unkeyedEntrants`). */
export interface UnkeyedEntrants {
  readonly uuids: string[];
  /** The keyed mark once these are keyed: every entrant with a ticket up to it is. */
  readonly mark: number;
}

/**
 * An entrant's draw key: its HMAC-SHA256 with the seed, as 64 lowercase hex digits
 * (`drawKey` in domain/events/draw.ts). The draw's order is the keys' (then the uuids') order.
 */
export interface DrawKey {
  readonly uuid: string;
  readonly key: string;
}

/** What one step of the draw did (`placeDrawn`). */
export interface DrawStep {
  /** Entrants it placed (those gone meanwhile are left out). */
  readonly placed: number;
  /** True once the draw is done: every entrant placed, the order kept. */
  readonly done: boolean;
}

/**
 * The events part of a room's store: their definitions, and each event's transitions, each one
 * atomic and taking effect once whichever instance calls it first. The draw's keys are computed by
 * the caller (they need SHA-256, which Redis scripts lack) while the pre-queue fills
 * (`unkeyedEntrants`, `addDrawKeys`); the store sorts them and places the entrants in steps
 * (`placeDrawn`), none of which holds it long.
 */
export interface EventStore {
  /** The room's events and their version. */
  events(): Promise<StoredEvents>;

  /**
   * Replaces the room's events when they are still at `version` (compare and set), so that two
   * admin calls on two instances cannot both pass the checks against an old list. False when
   * another change came first: read again and retry.
   */
  saveEvents(version: number, events: readonly DropEvent[]): Promise<boolean>;

  /** Where event `id` stands (empty before its pre-queue). */
  eventState(id: string): Promise<EventState>;

  /**
   * Starts the pre-queue of event `id`, once: keeps `seed` (null for an event without a draw) and
   * the last ticket given so far as `afterTicket`. A later call changes nothing. Answers the state.
   */
  startPrequeue(id: string, seed: string | null): Promise<EventState>;

  /**
   * Opens event `id`, once: keeps the last ticket given so far as `openTicket` (and as
   * `afterTicket` when its pre-queue never started: an empty one). Its entrants are the places
   * waiting with a ticket in (afterTicket, openTicket]; the draw places them in steps
   * (`placeDrawn`), and a place gone before the draw reaches it is left out. Takes the same time
   * whatever the pre-queue's size. Answers the state.
   */
  openEvent(id: string): Promise<EventState>;

  /**
   * The entrants of event `id` as uuids: once drawn, those the draw placed, in draw order;
   * before, the places waiting with a ticket above afterTicket (up to openTicket once open), in
   * ticket order (a place that walked away is no entrant). Read in pages: any size.
   */
  entrantsOf(id: string): Promise<string[]>;

  /**
   * Up to `count` entrants of event `id` not yet given their draw key (`addDrawKeys`), in ticket
   * order, from its pre-queue's start: the draw's keys are computed while the pre-queue fills, so
   * that the opening has only the last arrivals' left to compute. `mark` is what the keyed mark
   * becomes once they are keyed: the last one's ticket, or the opening's once no more can come.
   */
  unkeyedEntrants(id: string, count: number): Promise<UnkeyedEntrants>;

  /**
   * Keeps the entrants' draw keys (`DrawKey`) and raises the keyed mark to `mark`. Safe to repeat,
   * and from several instances at once: a key is its uuid's alone. Nothing once drawn. The Redis
   * store also moves each entrant to its draw slot, a ticket in key order kept for it at the start
   * of the pre-queue, so that its line is in draw order once the last entrant is keyed.
   */
  addDrawKeys(id: string, keys: readonly DrawKey[], mark: number): Promise<void>;

  /**
   * One step of the draw of event `id`: the next `count` entrants by draw key, those still waiting,
   * are appended to the kept draw, and hold from then on, in that order, the places right behind
   * those ahead of the pre-queue (the memory store moves them there now; the Redis store keyed them
   * into slots in that order already). After every step the entrants drawn so far come first in
   * the pre-queue, in draw order, every entrant not yet placed behind them; a release given the
   * event as `ReleasePolicy.drawing` stops at the last one placed. Safe to repeat, to run
   * from several instances at once, and to take up after a stop, since it goes on from what the
   * store holds. Undefined (nothing done) until every entrant is keyed, to the opening's ticket.
   * The step that finds no key left marks the draw done (`drawn`).
   */
  placeDrawn(id: string, count: number): Promise<DrawStep | undefined>;

  /** Claims the announcement of event `id`'s opening: true for the first call only. */
  claimAnnouncement(id: string): Promise<boolean>;

  /** Waiting places whose ticket is above `ticket`: an event's pre-queue so far. */
  countAfter(ticket: number): Promise<number>;

  /** Forgets event `id`'s state (the event was deleted). */
  forgetEvent(id: string): Promise<void>;
}
