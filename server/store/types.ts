/**
 * The queue store: every piece of waiting-room state that must be shared by all instances.
 * Each method is one atomic step, so that two instances working on one store can never
 * release a visitor twice, skip one, or replay a held request twice. `memory.ts` keeps it in
 * the process; `redis/redis-store.ts` keeps it in Redis for several instances.
 */

import type { EventStore } from './event-store';
import type { ReportStore } from '../domain/report/record';
import type { HandoffStore } from './handoff';

export type { HandoffOffer, HandoffOutcome, HandoffRefusal } from './handoff';

/** A protected request that was not let through, kept to be replayed after release. */
export interface HeldRequest {
  /** Upper-case HTTP verb. */
  readonly method: string;
  /** Same-origin path with its query string. */
  readonly uri: string;
  /** For verbs other than GET: the body as received (bounded in size by the server). */
  readonly body?: HeldBody;
  /**
   * True when a non-GET came from a page of another site (`gateway/cross-site.ts`): its replay
   * carries none of the visitor's cookies.
   */
  readonly crossSite?: boolean;
}

/** A held request's body, byte for byte. */
export interface HeldBody {
  readonly contentType: string;
  /** The bytes as UTF-8 text, or as base64 when `encoding` says so (bodies that are not text). */
  readonly raw: string;
  readonly encoding?: 'base64';
}

/**
 * `pending`: the place waits for its bot check (`enterLine`), out of the line: no ticket, no
 * position, nobody behind it. `waiting`: in line. `released`: admitted, its held request kept for
 * the replay while the admission lasts.
 */
export type EntryState = 'pending' | 'waiting' | 'released';

/** One visitor's place in line. */
export interface Entry {
  readonly uuid: string;
  readonly sessionId: string;
  /** 0 for anonymous visitors. */
  readonly userId: number;
  /**
   * Order of arrival: the line is kept in ticket order. Not a position: places ahead may have
   * gone since, from the head or the middle; the position is the rank among those still waiting.
   * 0 while pending: a place gets its ticket when it enters the line.
   */
  readonly ticket: number;
  readonly request: HeldRequest;
  readonly state: EntryState;
  readonly heldAt: number;
  /** Last time the visitor showed it is still there (hold, queue_info, queue_request). */
  readonly lastSeen: number;
  readonly releasedAt?: number;
  /** True once the held request was restored by a replay. */
  readonly replayed: boolean;
  /** While pending: when the place is dropped unless it entered the line before (ms). */
  readonly pendingUntil?: number;
  /** While pending or waiting: the client address's key it counts against (`HoldOptions.address`). */
  readonly address?: string;
}

/** How `hold` gives a new place. */
export interface HoldOptions {
  /**
   * The client address's key (see `bot-check/address.ts`): the place counts against it while it is
   * pending or waiting, up to `placesPerAddress`.
   */
  readonly address?: string;
  /** Most places, pending or waiting, one address may hold at once; absent or 0: no cap. */
  readonly placesPerAddress?: number;
  /**
   * The room's bot check is on: a new place is pending, out of the line, until `enterLine`, and
   * dropped at this time (ms) otherwise. Absent: a new place enters the line at once, and a place
   * of this session still pending (the check was turned off meanwhile) enters it now.
   */
  readonly pendingUntil?: number;
  /**
   * A place this session already has keeps its held request, and `request` is held only by a new
   * place: a request sent by another site must never replace the one the visitor waits for.
   */
  readonly keepRequest?: boolean;
}

export interface AdmissionLimits {
  /** Admitted sessions at once. */
  readonly activeLimit: number;
  /** How long an admitted session stays admitted, in ms. */
  readonly sessionMs: number;
}

export interface ReleasePolicy extends AdmissionLimits {
  /** Most releases a minute by the release loop; 0 means only by the admin API. */
  readonly perMinute: number;
  /**
   * A waiting visitor silent this long (ms) has walked away: the release loop's sweep
   * (`dropAbandoned`) drops them wherever they are, and a release meeting one at the head drops
   * them too, without counting them.
   */
  readonly abandonMs: number;
  /**
   * How long (ms) after its release a released place is kept for its replay, whether or not the
   * visitor came back (CLAIM_SECONDS): then it is forgotten, and queue_info answers 404. Capped
   * by `sessionMs`; absent: `sessionMs`. The admission itself lasts `sessionMs`.
   */
  readonly claimMs?: number;
  /**
   * Each release draws uniformly among those waiting instead of taking the head (an event's
   * `random` queueing). Places drawn from the middle do not count in `served`.
   */
  readonly random?: boolean;
  /**
   * The id of an event whose draw is being placed (`EventStore.placeDrawn`): releases stop at the
   * last entrant it has placed, so that nobody passes an entrant whose rank is not placed yet.
   */
  readonly drawing?: string;
}

/** What a protected request's arrival meets (`arrive`): let through, or held, with its place. */
export type Arrival = { readonly admitted: true } | { readonly admitted: false; readonly place: ArrivedPlace };

/** A held arrival's place as `placeInLine` reads it, but the release times, which queue_info reads apart (`recentReleases`). */
export type ArrivedPlace = Omit<PlaceInLine, 'recentReleases'>;

/** What queue_info needs, read in one step. */
export interface PlaceInLine {
  readonly entry: Entry;
  /** 0 once released, and while pending (see `entry.state`); otherwise 1 for the head of the line. */
  readonly position: number;
  /** Times (ms) of the most recent releases, newest first, for the wait estimate. */
  readonly recentReleases: readonly number[];
  /** The line's `served` (see `Position`), read in the same step. */
  readonly served: number;
}

/**
 * What queue_info asks of the store on every poll, read lean: neither the entry nor the release
 * times, which the route reads apart (`recentReleases`) and shares between visitors.
 */
export interface Position {
  /**
   * 0 once released, and while pending; otherwise the rank among those still waiting, 1 for the
   * head of the line.
   */
  readonly position: number;
  /** The place's ticket: its order in the line (an event's pre-queue is told apart by it). */
  readonly ticket: number;
  /** True while the place waits for its bot check: it has no position yet (see `pending` first). */
  readonly pending?: true;
  /**
   * Places that have left the head of the line so far, line-wide, read in the same step. Those
   * who walked away from the middle are not counted: `served + position` is the visitor's place
   * counted from the start of the line as it stands now, and when k more leave the head, every
   * waiting visitor moves up by k (see `Release`).
   */
  readonly served: number;
}

/** Most one line-wide `QueueMoved` a this long, whichever instance releases (see `Release.moved`). */
export const MOVE_INTERVAL_MS = 1000;

/** What a release did: the visitors released, in order, and the line's `served` right after. */
export interface Release {
  readonly released: Entry[];
  /**
   * Whether this step is the one to tell the pages the line moved (`QueueMoved` with `served`):
   * an operator's release always is, when anyone left the head; the release loop's step is when
   * `served` grew since the last move told, and that was `MOVE_INTERVAL_MS` ago or more, whichever
   * instance told it. So however many instances release, the pages hear of the line at most once
   * a second, and a move owed is told by the next step (every instance runs one a second), even
   * one that releases nobody.
   */
  readonly moved: boolean;
  /**
   * Places that have left the head of the line so far, line-wide, including this release's and
   * the silent visitors it dropped at the head. Only ever grows, so every instance may publish it
   * (`QueueMoved`) and a page keeps the largest it heard.
   */
  readonly served: number;
}

/** The line-wide release times for the wait estimate, with the `served` they were read at. */
export interface RecentReleases {
  /**
   * `served` when the times were read. Releases leave from the head, so the times change only
   * when `served` grows: a copy read at `served` ≥ what a visitor's `Position` saw is current
   * for that visitor, and instances may share it between visitors without reading it again.
   */
  readonly served: number;
  /** Times (ms) of the most recent releases, newest first. */
  readonly times: readonly number[];
}

export interface Stats {
  /** Places in line now: those who walked away count no more once dropped. */
  readonly waiting: number;
  /** Places waiting for their bot check, out of the line. */
  readonly pending: number;
  readonly active: number;
  readonly released: number;
  readonly paused: boolean;
  /**
   * Places ever taken (tickets given; not the pending). Every place taken waits, was released, or left otherwise
   * (walked away, or replaced at sign-in), so `arrived - released - waiting` counts those who left.
   */
  readonly arrived: number;
}

/**
 * The operator's limits for a room, kept in the store so that every instance follows them and
 * they last as long as the line does. A field left out keeps the configured value.
 */
export interface LimitOverrides {
  readonly activeLimit?: number;
  readonly perMinute?: number;
}

/** A change of `LimitOverrides`: a number sets the field, `null` goes back to the configured value, absent leaves it. */
export type LimitChange = { readonly [K in keyof LimitOverrides]?: number | null };

/** The operator's message to a line's waiting visitors: plain text, for any language (`text`) and per language tag (`texts`). */
export interface MessageTexts {
  readonly text?: string;
  readonly texts?: Readonly<Record<string, string>>;
}

/**
 * The line's message as the store keeps it: its texts (none once cleared) and its version, which
 * every change makes larger, a clearing included: at least one more than the last, and at least
 * the `now` of the change, so that a store started afresh (an emptied Redis) still gives larger ones.
 */
export interface StoredMessage extends MessageTexts {
  readonly version: number;
}

/** An admission a site ended: the passes of `session` that end at `expiresAt` or before admit nobody. */
export interface Revocation {
  readonly session: string;
  /** The revoked admission's end, in seconds since the epoch: the `exp` of its passes. */
  readonly expiresAt: number;
}

/** A read of the revocation feed. */
export interface RevocationsRead {
  readonly revoked: readonly Revocation[];
  /** Where the next read starts. */
  readonly cursor: string;
  /** True when more revocations follow the cursor than one read answers. */
  readonly more: boolean;
}

/** Most revocations one read answers. */
export const REVOCATIONS_PER_READ = 1000;

/** The cursor of a revocation feed: the store's epoch (a new one when its state starts afresh) and the last sequence number read. */
export function revocationCursor(epoch: string, sequence: number): string {
  return `${epoch}.${sequence}`;
}

/** The sequence number to read after, given a cursor and the store's epoch: 0 for a cursor of another epoch, or none. */
export function revocationsAfter(since: string | undefined, epoch: string): number {
  const match = since === undefined ? null : /^([A-Za-z0-9-]{1,64})\.(\d{1,15})$/.exec(since);
  return match && match[1] === epoch ? Number(match[2]) : 0;
}

/**
 * A revoked admission's slot while connectors may still honour its pass: a member of the
 * admitted sessions that counts against the active limit but admits nobody.
 */
export function revokedSlot(sessionId: string): string {
  return `~${sessionId}`;
}

/**
 * A place moved ahead with a priority code holds a ticket from this base up (the first code used
 * gets `PRIORITY_TICKET_BASE + 1`, the next `+ 2`): below every ticket of the line, so that each
 * code holder waits ahead of every place without a code and behind the code holders before it.
 * Still a safe integer, and a Redis score held exactly.
 */
export const PRIORITY_TICKET_BASE = -(2 ** 52);

/** Whether a ticket is a code holder's (see `PRIORITY_TICKET_BASE`). */
export function isPriorityTicket(ticket: number): boolean {
  return ticket < 0;
}

/** The bounds on wrong codes `useCode` counts, in one step with the code's check. */
export interface CodeGuessLimits {
  /** The client address's key (see `bot-check/address.ts`); '' counts nothing for the address. */
  readonly address: string;
  /** Most wrong codes one place may send, ever. */
  readonly perPlace: number;
  /** Most wrong codes one address may send within `windowMs`. */
  readonly perAddress: number;
  readonly windowMs: number;
}

/**
 * What a code did (`useCode`): `moved` the place is now ahead (its new `position`); `ahead` it
 * already was, by an earlier code, and this one was not used; `wrong` no such code (unknown, used
 * or expired), counted against the place and the address; `limited` too many wrong codes, not
 * even checked; `not-waiting` the session's place is pending or released; `no-place` the
 * session has none.
 */
export type CodeUse =
  { readonly outcome: 'moved' | 'ahead'; readonly position: number } | { readonly outcome: 'wrong' | 'limited' | 'not-waiting' | 'no-place' };

/** The priority codes of a line so far: issued, and used of those. */
export interface CodeCounts {
  readonly issued: number;
  readonly used: number;
}

/** A room's store: its line, its events (`event-store.ts`) and its report (`domain/report/record.ts`). */
export interface QueueStore extends EventStore, ReportStore, HandoffStore<Entry> {
  /**
   * Lets a session through when it is admitted, or admits it when nobody waits and fewer
   * than `activeLimit` sessions are active. False means the request must be held.
   */
  admit(sessionId: string, now: number, limits: AdmissionLimits): Promise<boolean>;
  /** When the session's admission ends (ms), or undefined when it is not admitted at `now`: the end of the pass it is given. */
  admittedUntil(sessionId: string, now: number): Promise<number | undefined>;

  /**
   * Ends the session's admission now (a site's revoke: a finished checkout); its next protected
   * request is held, or admitted again if the room has room, and that next admission ends at
   * least a second after the revoked one (a pass names its admission by its end, in seconds). A
   * place still waiting is kept. The revocation enters the feed (`revocations`) until the revoked
   * admission would have ended. Its slot goes to the next visitor only `keepSlotMs` later (or
   * when the admission would have ended, if sooner): so long may a connector that has not yet
   * read the feed still honour the pass. True when the session was admitted.
   */
  revoke(sessionId: string, now: number, keepSlotMs?: number): Promise<boolean>;

  /**
   * The revocations entered after `since` (a cursor this method answered; undefined: all) whose
   * admissions have not yet ended at `now`, in the order they were made, at most
   * `REVOCATIONS_PER_READ`, with the cursor to ask from next. A cursor of another store (a
   * restarted one, an emptied Redis) reads from the start.
   */
  revocations(since: string | undefined, now: number): Promise<RevocationsRead>;

  /**
   * The session's place in line. A session that already waits (or is pending) keeps its uuid and
   * ticket; its held request is replaced by this one (unless `options.keepRequest`). Otherwise it takes the next ticket, or with
   * `options.pendingUntil` a pending place (see `HoldOptions`). A new place counts against
   * `options.address`: past `options.placesPerAddress`, nothing changes and the call throws
   * `PlacesPerAddressError`.
   */
  hold(sessionId: string, userId: number, request: HeldRequest, now: number, options?: HoldOptions): Promise<Entry>;

  /**
   * A protected request's arrival, in one step: `admit` with `limits` (undefined: nobody is let
   * through, as in a pre-queue); when not admitted, `hold` with `options`, and the place
   * (`ArrivedPlace`). Throws `PlacesPerAddressError` as `hold` does.
   */
  arrive(sessionId: string, userId: number, request: HeldRequest, now: number, limits: AdmissionLimits | undefined, options?: HoldOptions): Promise<Arrival>;

  /**
   * A pending place enters the line, at the back (its bot check passed): it gets the next ticket
   * now. A place already waiting or released is left as it is, so a solution counts once. Returns
   * the place's state after the call; undefined when the uuid is unknown.
   */
  enterLine(uuid: string, now: number): Promise<EntryState | undefined>;

  /** Drops a place still pending (its solution was refused); false when it is not pending. */
  dropPending(uuid: string): Promise<boolean>;

  get(uuid: string): Promise<Entry | undefined>;

  /** Reads the visitor's position and marks them as seen at `now`. Undefined when unknown. */
  placeInLine(uuid: string, now: number): Promise<PlaceInLine | undefined>;

  /**
   * Like `placeInLine` without the entry and the release times, for queue_info's hot path: the
   * visitor's position, ticket and the line's `served`, and marks them as seen at `now` (a
   * Redis store may keep its mark of a moment ago instead, `RedisStoreOptions.awayMs`). Undefined
   * when unknown.
   */
  position(uuid: string, now: number): Promise<Position | undefined>;

  /** The most recent release times (as `placeInLine` gives them) and `served`, read in one step. */
  recentReleases(): Promise<RecentReleases>;

  /** Marks the visitor as seen at `now`; false when the uuid is unknown. */
  touch(uuid: string, now: number): Promise<boolean>;

  /**
   * Releases the next `count` waiting visitors now, whatever the limits (the admin API).
   * Silent visitors met at the head are dropped, not counted. Returns those released, in order,
   * and the line's `served` after it.
   */
  release(count: number, now: number, policy: ReleasePolicy): Promise<Release>;

  /**
   * The release loop's step, safe to run from every instance at once: releases as many
   * visitors as the active limit, the per-minute rate and the pause allow at `now`.
   */
  releaseDue(now: number, policy: ReleasePolicy): Promise<Release>;

  /**
   * A replay came for a place that waits: releases it at once if its release was undone by a
   * failover (this instance saw it leave the line, and Redis holds it waiting again: a page that
   * left does not replay), as the release loop's next step would, and answers that step. Undefined for every other place, and always in
   * a store no failover reaches (memory).
   */
  releaseAgain(uuid: string, now: number, policy: ReleasePolicy): Promise<Release | undefined>;

  /**
   * The release loop's sweep, run on every tick whatever the room's state (full, paused, a rate
   * of 0), since visitors walk away whether or not the line moves: drops the waiting places
   * silent for longer than `abandonMs` at `now`, wherever they are in line, so that those behind
   * move up. Atomic, and safe to run from every instance at once: each place is dropped once.
   * Drops at most a bounded batch per call (1,000), the longest silent first, so that one call
   * never holds the store for long; the next tick goes on. Returns how many it dropped. Also drops,
   * in a batch of the same bound, the pending places whose `pendingUntil` has come (not counted:
   * they never had a place in line).
   */
  dropAbandoned(now: number, abandonMs: number): Promise<number>;

  /**
   * Restores the held request of a released visitor, once: the first call for a uuid that
   * belongs to `sessionId` returns it, every later call returns undefined.
   */
  takeHeld(uuid: string, sessionId: string): Promise<HeldRequest | undefined>;

  /**
   * Moves what session `from` has to session `to`, for a visitor whose session id changes
   * (sign-in): its place in line, waiting or released — the same uuid, ticket, position,
   * held request and replayed mark, now under `to` with `userId` — and its admission, ending
   * when it did. Afterwards `from` has nothing: neither holds, admits nor restores a held
   * request for it. Nothing changes when `from` has neither a place nor an admission.
   *
   * `to` is meant to be an id just generated, so anything it already has is replaced by what
   * `from` had (a waiting place it had is dropped, and those behind move up). With `to` equal
   * to `from`, only the user id changes.
   */
  moveSession(from: string, to: string, userId: number): Promise<void>;

  /**
   * Keeps new priority codes, by their hashes only (`domain/codes.ts`), each usable once until
   * `expiresAt` (ms). Counted in `codeCounts().issued`.
   */
  addCodes(hashes: readonly string[], now: number, expiresAt: number): Promise<void>;

  /**
   * The session's place takes the code whose hash is `hash`, in one step: the code is used (never
   * again), and the place moves ahead of every place without a code, behind the earlier code
   * holders (a ticket from `PRIORITY_TICKET_BASE`). Everyone it passes moves back one place; no
   * one else moves. Past `limits`, nothing is checked (`limited`); a wrong code counts against
   * both bounds. See `CodeUse`.
   */
  useCode(sessionId: string, hash: string, now: number, limits: CodeGuessLimits): Promise<CodeUse>;

  /** The codes issued and used in this line so far. */
  codeCounts(): Promise<CodeCounts>;

  stats(now: number): Promise<Stats>;

  setPaused(paused: boolean): Promise<void>;

  /** The operator's limits (see `LimitOverrides`). */
  limits(): Promise<LimitOverrides>;

  /** Changes the operator's limits, field by field, in one step; answers them as they now are. */
  setLimits(change: LimitChange): Promise<LimitOverrides>;

  /** The bot check's difficulty the operator set for this line; undefined: the configured one. */
  challengeDifficulty(): Promise<number | undefined>;

  /** Sets the bot check's difficulty (null: back to the configured one); answers it as it now is. */
  setChallengeDifficulty(difficulty: number | null): Promise<number | undefined>;

  /** The operator's message to those waiting (see `StoredMessage`); undefined when none was ever set. */
  message(): Promise<StoredMessage | undefined>;

  /** Sets the message (null clears it) with its next version, at `now`; answers it as it now is. */
  setMessage(message: MessageTexts | null, now: number): Promise<StoredMessage>;

  close(): Promise<void>;
}
