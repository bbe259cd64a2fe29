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
  /** True once the draw has put the entrants in order in the line. */
  readonly drawn?: boolean;
  /** True once an instance has claimed the announcement of the opening (`QueueOpened`). */
  readonly announced?: boolean;
}

/**
 * The events part of a room's store: their definitions, and each event's transitions, each one
 * atomic and taking effect once whichever instance calls it first. The draw itself is computed by
 * the caller (it needs SHA-256, which Redis scripts lack): `entrantsOf` gives the entrants, and
 * `applyDraw` puts them in order once.
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
   * Opens event `id`, once: keeps the last ticket given so far as `openTicket`, and freezes its
   * entrants, the places waiting then with a ticket in (afterTicket, openTicket] (a pre-queue
   * never started counts as an empty one), so that every instance draws the same. Answers the state.
   */
  openEvent(id: string): Promise<EventState>;

  /**
   * The entrants of event `id` as uuids: once drawn, every entrant in draw order, as kept by
   * `applyDraw`; once open, those frozen at the opening, in ticket order; before, the places
   * waiting with a ticket above afterTicket (a place that walked away is no entrant).
   */
  entrantsOf(id: string): Promise<string[]>;

  /**
   * Puts the entrants in the order of `uuids` (the frozen entrants, drawn), once: those still
   * waiting take, in that order, the tickets the entrants held between them (so they stay behind
   * those who were ahead, and ahead of later arrivals), and `uuids` is kept as the draw. True for
   * the call that did it, false after. A store may place them in several steps (Redis does, so
   * that no step holds it long), each one safe to repeat; the draw counts as done, for `drawn`,
   * only after the last.
   */
  applyDraw(id: string, uuids: readonly string[]): Promise<boolean>;

  /** Claims the announcement of event `id`'s opening: true for the first call only. */
  claimAnnouncement(id: string): Promise<boolean>;

  /** Waiting places whose ticket is above `ticket`: an event's pre-queue so far. */
  countAfter(ticket: number): Promise<number>;

  /** Forgets event `id`'s state (the event was deleted). */
  forgetEvent(id: string): Promise<void>;
}
