/**
 * Moving a place to another browser ("continue on another device"): the page asks for a link
 * (`offerHandoff`), and the browser that opens it takes the place (`takeHandoff`), once. The
 * store keeps the links, so that whichever instance the other browser reaches honours them, and
 * takes one in a single atomic step, so that two browsers opening it at once cannot both move.
 */

/** A link as kept until it is opened or expires. The store knows it by the digest of its token only. */
export interface HandoffOffer {
  /** The place it moves. */
  readonly uuid: string;
  /** The session that owns the place when the link is made: the place moves only if it still does. */
  readonly sessionId: string;
  /** The name the visitor signed in with, carried to the other browser's session ('' when none). */
  readonly name: string;
  /** When the link stops moving anything (ms). */
  readonly expiresAt: number;
}

/**
 * Why a link moved nothing: already opened (`used`), opened after its lifetime (`expired`), never
 * made or long forgotten (`unknown`), or its place is no longer the one it was made for (`gone`:
 * it left the line, its held request was replayed, or another link moved it first).
 */
export type HandoffRefusal = 'used' | 'expired' | 'unknown' | 'gone';

/** What opening a link did; `E` is the store's entry (`Entry`). */
export type HandoffOutcome<E> =
  | {
      readonly moved: true;
      /** The place now: its new uuid, under the new session; same ticket, position and held request. */
      readonly entry: E;
      /** The uuid the place had, which the browser it left still knows. */
      readonly from: string;
      readonly name: string;
    }
  | { readonly moved: false; readonly refusal: HandoffRefusal };

/** How long a link's record is kept after its lifetime, so that a late open is told "expired" rather than "unknown". */
export const HANDOFF_RECORD_MS = 60 * 60_000;

/**
 * How long the uuid a place left answers "moved" (`movedAway`) to the page it left: a day covers
 * a laptop closed overnight; after it, that page hears of an unknown place.
 */
export const MOVED_MARK_MS = 24 * 60 * 60_000;

/** The links' part of a queue store (`QueueStore`), whose entries are `E`. */
export interface HandoffStore<E> {
  /**
   * Keeps a link to `offer.uuid`'s place under `key` (the digest of its token) until
   * `offer.expiresAt` (and its record `HANDOFF_RECORD_MS` more). False, and nothing kept, unless
   * the place belongs to `offer.sessionId` and waits in line, or is released with its held request
   * not yet replayed.
   */
  offerHandoff(key: string, offer: HandoffOffer, now: number): Promise<boolean>;

  /**
   * Opens the link kept under `key`, in one step: the first open before its expiry moves the place
   * to session `to` under `newUuid` — the same ticket (so the same position), state, held request
   * and user id, the admission of a released place too — and marks the old uuid as moved
   * (`movedAway`) for `MOVED_MARK_MS`; the old session keeps nothing. Every later open, an open
   * after the expiry, and an open of a link whose place changed hands or left, move nothing and
   * say why. A link counts as used once opened in time, even when its place was gone.
   */
  takeHandoff(key: string, to: string, newUuid: string, now: number): Promise<HandoffOutcome<E>>;

  /** True when `uuid` is a place's old uuid, left by `takeHandoff` less than `MOVED_MARK_MS` ago. */
  movedAway(uuid: string, now: number): Promise<boolean>;
}
