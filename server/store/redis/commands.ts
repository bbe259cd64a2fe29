import type { RedisClient } from '../../redis/connection';
import type { Result } from 'ioredis';
import { readLua } from '../../redis/lua';
import { ABANDON_BATCH, RECENT_RELEASES } from '../memory';
import { MOVE_INTERVAL_MS, PRIORITY_TICKET_BASE } from '../types';
import { TICKET_EPOCH_MS, TICKETS_PER_MS } from './parts';

/**
 * The Redis queue store's commands: Lua scripts (`lua/<name>.lua`) that Redis runs atomically,
 * defined on the client with `defineCommand` and typed on ioredis's `RedisCommander`. Each store
 * method that changes more than one key is one script, so that two instances can never release
 * the same visitor twice, skip one, or restore a held request twice.
 *
 * Every command takes the same ten keys (`SCRIPT_KEYS`); ARGV[1] is the key prefix of the
 * per-visitor keys (`<prefix>e:<uuid>` the entry hash, `<prefix>r:<uuid>` the held request),
 * ARGV[2] the call's deadline in Redis time ('0': none), and the command's own arguments follow
 * (`args` in Lua). Times in the queue are the callers' `now` (ms), never Redis's clock, so the
 * store follows the clock it is given; Redis's clock only guards the deadline.
 */

/** The error a script answers when it reached Redis after its deadline. */
export const DEADLINE_PASSED = 'WRDEADLINE';

/**
 * The keys every script receives, in this order (each after the store's prefix):
 * - meta: hash of t last ticket given, sk the tickets given to no arrival (a draw's slots, a
 *   place moved to a new ticket: the arrivals are t - sk), s places served (gone from the head), n released in
 *   all, p paused ('1'), bt and ba the release bucket's tokens and when it was last filled,
 *   la and lr the operator's active limit and releases a minute (absent: the configured ones),
 *   ms and mt the served last told to the pages as a move and when (see Release.moved), cd the
 *   operator's bot-check difficulty (absent: the configured one), mv and mg the operator's message's
 *   version and its texts as JSON (see StoredMessage), re and rs the revocation feed's
 *   epoch and last sequence number, ci and cu the priority codes issued and used, pt the last
 *   code holder's ticket counted from PRIORITY_TICKET_BASE, pq the event of the latest shuffled
 *   pre-queue (its draw under way until it opens), qs and qt the served last told to the pages and
 *   when, in the first part of a room split across shards (its parts' together: parted-moved.lua),
 *   and v the line's version: how many entries the log has had;
 * - waiting: sorted set of the waiting uuids by ticket, the line: its head is the lowest score,
 *   and a position is a rank (ZRANK, O(log n)) among those still waiting, since places also go
 *   from the middle (visitors who walked away);
 * - seen: sorted set of the same uuids by the time (ms) they were last seen, for the sweep of
 *   those who walked away to find the longest silent first; a waiting place's last-seen is its
 *   score there, which queue_info's polls write alone (see `positions.lua`, `mark-seen.lua`);
 * - sessions: hash of session id to the uuid of its place (waiting, or released and admitted);
 * - admitted: sorted set of session ids by the time (ms) their admission ends, and of `~<session id>`
 *   for a revoked admission's slot while connectors may still honour its pass (`revokedSlot`);
 * - released: sorted set of released uuids by release time, to forget them once admission ends;
 * - recent: list of the latest release times, newest first, for the wait estimate;
 * - pending: sorted set of the uuids of places waiting for their bot check, by the time (ms) they
 *   are dropped unless they entered the line before, for the sweep;
 * - addresses: hash of a client address's key to the places (pending or waiting) it holds, for
 *   PLACES_PER_ADDRESS;
 * - named from ARGV[1] as the entries are: `<prefix>rv`, sorted set of the revoked sessions by
 *   their sequence number in the revocation feed, and `<prefix>rx`, hash of each one's revoked
 *   admission's end (s); each kept until that end;
 * - named from ARGV[1] too: `<prefix>c:<hash>`, a priority code not yet used (its value when it
 *   expires), and `<prefix>cg:<address>`, the wrong codes an address sent in its current window;
 * - log: stream of the line's changes, one entry for each call that changed it (v the line's
 *   version after it, s served after it, c its changes, see `changed` in prelude.lua), arrivals
 *   together (`ARRIVALS_LOGGED`), read by every instance's copy of the line (see line-copy.ts); the
 *   last `LOG_LENGTH` or so are kept;
 * - named from ARGV[1] too: `<prefix>wa`, the changes of the arrivals not logged yet, in order.
 */
export const SCRIPT_KEYS = ['meta', 'waiting', 'seen', 'sessions', 'admitted', 'released', 'recent', 'pending', 'addresses', 'log'] as const;

/**
 * Entries the line's log keeps (about: trimmed by whole nodes). An instance's copy that falls
 * further behind loads the line again; a copy loading drains the log every few pages, so a few
 * seconds of a busy line's changes are enough however long the line (line-copy.ts).
 */
export const LOG_LENGTH = 10_000;

/**
 * Arrivals logged together: they wait to be logged until this many wait, or the first has waited
 * `ARRIVALS_LOGGED_MS` (publishChanges in prelude.lua). An entry of the log costs each instance's
 * copy of the line a read whatever its size, so that one an arrival was the arrivals a second times
 * the instances. The log then holds at most about `LOG_LENGTH` × this many arrivals (45 bytes each).
 */
export const ARRIVALS_LOGGED = 100;
/** Longest an arrival waits to be logged (Redis's clock), the instance that made it asking again then. */
export const ARRIVALS_LOGGED_MS = 50;

/** Arguments of one arrival in arrive.lua, which takes several in one call. */
const ARRIVAL_ARGS: ArrivalArgs['length'] = 11;

/** Longest held request kept inside the entry hash, in bytes (Redis's default listpack limit). */
const INLINE_REQUEST_BYTES = 64;

/**
 * An event's draw slots (add-draw-keys.lua). A shuffled pre-queue keeps the `DRAW_SLOTS` tickets
 * after its start (afterTicket) for its draw, and its arrivals take tickets after those, as any
 * arrival does. Each entrant, once keyed, moves to its slot: `DRAW_GROUP` × (its key's first 32
 * bits) + its rank among the keys sharing those bits, counted from afterTicket + 1. The slots'
 * order is the keys' order, so the line is in draw order as soon as the last entrant is keyed, and
 * the opening moves nobody. A pre-queue takes 2^36 tickets of the 2^53 a ticket can count.
 */
const DRAW_GROUP = 16;
const DRAW_SLOTS = DRAW_GROUP * 2 ** 32;

/** Most released entries forgotten by one releaseDue, so one call never blocks Redis for long. */
const FORGET_BATCH = 500;

/** The constants the scripts read, defined in Lua before the prelude: the same values as the store's here. */
const CONSTANTS = {
  DRAW_SLOTS,
  DRAW_GROUP,
  DEADLINE_PASSED,
  INLINE_REQUEST_BYTES,
  RECENT_RELEASES,
  LOG_LENGTH,
  ARRIVALS_LOGGED,
  ARRIVALS_LOGGED_MS,
  MOVE_INTERVAL_MS,
  FORGET_BATCH,
  ABANDON_BATCH,
  PRIORITY_TICKET_BASE,
  TICKET_EPOCH_MS,
  TICKETS_PER_MS,
  ARRIVAL_ARGS,
};

/** One arrival's arguments to arrive.lua, in order. */
export type ArrivalArgs = [
  sessionId: string,
  now: number,
  activeLimit: Optional<number>,
  sessionMs: number,
  userId: number,
  request: string,
  newUuid: string,
  address: string,
  placesPerAddress: number,
  pendingUntil: Optional<number>,
  keep: '1' | '',
];
/** One arrival's answer: admitted, refused for its address, or held with its place. */
export type ArriveReply = [1] | [2] | [0, [entry: EntryReply, position: number, served: number]];

/** An entry as the scripts answer it: its uuid, its held request, then its hash's fields and values (see prelude.lua). */
export type EntryReply = [uuid: string, request: string, ...fields: string[]];
/** A release: the line's served after it, the released entries in order, and 1 when it tells the pages the line moved. */
export type ReleaseReply = [served: number, released: EntryReply[], moved: 0 | 1];
/** An event's state: its hash's fields and values (seed, after, open, drawn, announced). */
export type EventStateReply = string[];
/** The operator's message: its version and its texts as JSON, each null when not set. */
export type MessageReply = [version: string | null, json: string | null];
/** The operator's active limit and releases a minute, each null when not set. */
export type LimitsReply = [activeLimit: string | null, perMinute: string | null];

/**
 * An event's entrants: {3, the draw's length} once drawn (its order a list, read in pages), {2, the
 * draw's uuids as JSON} once drawn by the version before, else {0, the waiting uuids with a ticket
 * in its pre-queue's range}.
 */
export type EntrantsReply = [kind: 0, uuids: string[]] | [kind: 2, json: string] | [kind: 3, length: number];
/** A step of the draw: 1 once done, 0 when more are left, -1 refused (entrants not all keyed); the entrants it placed. */
export type PlaceReply = [done: 1 | 0 | -1, placed: number];

/** A number, or '' for none, as the scripts take an optional argument. */
type Optional<T> = T | '';

/**
 * Each command's own arguments (after the keys, the prefix and the deadline) and its own answer,
 * by the name it is defined under. What each means is said at the top of its script (`SCRIPTS`).
 */
interface Commands {
  waitingRoomAdmit: { args: [sessionId: string, now: number, activeLimit: number, sessionMs: number]; reply: 0 | 1 };
  waitingRoomRevoke: { args: [sessionId: string, now: number, keepSlotMs: number, newEpoch: string]; reply: 0 | 1 };
  waitingRoomRevocations: {
    args: [after: number, epoch: string, now: number, newEpoch: string, limit: number];
    reply: [epoch: string, last: number, more: 0 | 1, revoked: string[]];
  };
  waitingRoomHold: {
    args: [
      sessionId: string,
      userId: number,
      request: string,
      now: number,
      newUuid: string,
      address: string,
      placesPerAddress: number,
      pendingUntil: Optional<number>,
      keep: '1' | '',
    ];
    reply: EntryReply | 0;
  };
  /** The arrivals of one batch, `ARRIVAL_ARGS` each (`ArrivalArgs`), and an answer for each in turn. */
  waitingRoomArrive: { args: Array<string | number>; reply: ArriveReply[] };
  waitingRoomEnterLine: { args: [uuid: string, now: number]; reply: 'waiting' | 'released' | null };
  waitingRoomDropPending: { args: [uuid: string]; reply: 0 | 1 };
  waitingRoomGet: { args: [uuid: string]; reply: EntryReply | null };
  waitingRoomPlaceInLine: { args: [uuid: string, now: number]; reply: [entry: EntryReply, position: number, recentReleases: string[], served: number] | null };
  waitingRoomPositions: { args: string[]; reply: number[] };
  waitingRoomLogArrivals: { args: []; reply: 1 };
  waitingRoomLogHead: {
    args: [pageSize: number];
    reply: [version: number, served: number, lastId: string, first: number, last: number, ahead: string[], ends: number[]];
  };
  waitingRoomAddCodes: { args: [now: number, expiresAt: number, ...hashes: string[]]; reply: number };
  waitingRoomUseCode: {
    args: [sessionId: string, hash: string, now: number, address: string, perPlace: number, perAddress: number, windowMs: number];
    reply: [outcome: 0 | 1 | 3 | 5] | [outcome: 2 | 4, position: number];
  };
  waitingRoomCodeCounts: { args: []; reply: [issued: number, used: number] };
  waitingRoomMarkSeen: { args: string[]; reply: number };
  waitingRoomRecentReleases: { args: []; reply: [served: number, times: string[]] };
  waitingRoomTouch: { args: [uuid: string, now: number]; reply: 0 | 1 };
  waitingRoomRelease: {
    args: [count: number, now: number, sessionMs: number, abandonMs: number, seed: string, drawing: string, upTo: number | ''];
    reply: ReleaseReply;
  };
  waitingRoomReleaseDue: {
    args: [
      now: number,
      activeLimit: number,
      sessionMs: number,
      perMinute: number,
      abandonMs: number,
      seed: string,
      drawing: string,
      claimMs: number,
      ...again: string[],
    ];
    reply: ReleaseReply;
  };
  waitingRoomDropAbandoned: { args: [now: number, abandonMs: number]; reply: number };
  waitingRoomTakeHeld: { args: [uuid: string, sessionId: string]; reply: string | null };
  waitingRoomUntakeHeld: { args: [uuid: string]; reply: 1 };
  waitingRoomMoveSession: { args: [from: string, to: string, userId: number]; reply: 0 | 1 };
  waitingRoomOfferHandoff: {
    args: [key: string, uuid: string, sessionId: string, name: string, expiresAt: number, recordMs: number, now: number];
    reply: 0 | 1;
  };
  waitingRoomTakeHandoff: {
    args: [key: string, to: string, newUuid: string, now: number, movedMs: number, recordMs: number];
    reply: ['moved', from: string, name: string, entry: EntryReply] | ['unknown' | 'used' | 'expired' | 'gone'];
  };
  waitingRoomMovedAway: { args: [uuid: string, now: number]; reply: 0 | 1 };
  waitingRoomStats: {
    args: [now: number];
    reply: [waiting: number, active: number, released: number, paused: 0 | 1, arrived: number, pending: number];
  };
  waitingRoomSetPaused: { args: [paused: '1' | '0']; reply: void };
  waitingRoomPartedPace: { args: [now: number, perMinute: number, most: number, givenBack: number]; reply: number };
  waitingRoomPartedMoved: { args: [served: number, now: number, interval: number]; reply: 0 | 1 };
  waitingRoomPartedCount: { args: number[]; reply: number[] };
  waitingRoomPartedCodePlace: {
    args: [sessionId: string, perPlace: number, step: string];
    reply: [outcome: 0 | 1 | 3 | 5] | [outcome: 2 | 4, position: number, uuid: string];
  };
  waitingRoomPartedCodeTake: {
    args: [hash: string, now: number, address: string, perAddress: number, windowMs: number];
    reply: [outcome: 3 | 5] | [outcome: 4, ticket: string, expiresAt: string];
  };
  waitingRoomPartedCodeReturn: { args: [hash: string, expiresAt: string, now: number]; reply: 0 | 1 };
  waitingRoomLimits: { args: []; reply: LimitsReply };
  waitingRoomSetLimits: { args: [activeLimit: string, perMinute: string]; reply: LimitsReply };
  waitingRoomChallengeDifficulty: { args: []; reply: string | null };
  waitingRoomSetChallengeDifficulty: { args: [difficulty: Optional<number>]; reply: string | null };
  waitingRoomMessage: { args: []; reply: MessageReply };
  waitingRoomSetMessage: { args: [json: string, now: number]; reply: MessageReply };
  waitingRoomEvents: { args: []; reply: [version: string | null, json: string | null] };
  waitingRoomSaveEvents: { args: [version: number, json: string]; reply: 0 | 1 };
  waitingRoomEventState: { args: [id: string]; reply: EventStateReply };
  waitingRoomStartPrequeue: { args: [id: string, seed: string]; reply: EventStateReply };
  waitingRoomOpenEvent: { args: [id: string]; reply: EventStateReply };
  waitingRoomEntrantsOf: { args: [id: string]; reply: EntrantsReply };
  waitingRoomDrawUnkeyed: { args: [id: string, count: number]; reply: [mark: number, ...uuids: string[]] };
  waitingRoomAddDrawKeys: { args: [id: string, mark: number, ...members: string[]]; reply: number };
  waitingRoomPlaceDrawn: { args: [id: string, count: number]; reply: PlaceReply };
  waitingRoomClaimAnnouncement: { args: [id: string]; reply: 0 | 1 };
  waitingRoomCountAfter: { args: [ticket: number]; reply: number };
  waitingRoomForgetEvent: { args: [id: string]; reply: void };
}

export type CommandName = keyof Commands;
export type CommandArgs<Name extends CommandName> = Commands[Name]['args'];
export type CommandReply<Name extends CommandName> = Commands[Name]['reply'];

/** The keys (`SCRIPT_KEYS`, after the prefix), the prefix and the deadline, then the command's own arguments. */
type Call<Name extends CommandName> = [
  ...keys: [
    meta: string,
    waiting: string,
    seen: string,
    sessions: string,
    admitted: string,
    released: string,
    recent: string,
    pending: string,
    addresses: string,
    log: string,
  ],
  prefix: string,
  deadline: string,
  ...args: CommandArgs<Name>,
];
/**
 * The line's version after the call, 1 when arrivals wait to be logged after it (publishChanges in
 * prelude.lua), then the command's own answer (absent when the script answers nothing).
 */
export type Answer<Name extends CommandName> = [version: number, arrivalsWait: 0 | 1, answer: CommandReply<Name>];

declare module 'ioredis' {
  interface RedisCommander<Context> {
    waitingRoomAdmit(...call: Call<'waitingRoomAdmit'>): Result<Answer<'waitingRoomAdmit'>, Context>;
    waitingRoomRevoke(...call: Call<'waitingRoomRevoke'>): Result<Answer<'waitingRoomRevoke'>, Context>;
    waitingRoomRevocations(...call: Call<'waitingRoomRevocations'>): Result<Answer<'waitingRoomRevocations'>, Context>;
    waitingRoomHold(...call: Call<'waitingRoomHold'>): Result<Answer<'waitingRoomHold'>, Context>;
    waitingRoomArrive(...call: Call<'waitingRoomArrive'>): Result<Answer<'waitingRoomArrive'>, Context>;
    waitingRoomEnterLine(...call: Call<'waitingRoomEnterLine'>): Result<Answer<'waitingRoomEnterLine'>, Context>;
    waitingRoomDropPending(...call: Call<'waitingRoomDropPending'>): Result<Answer<'waitingRoomDropPending'>, Context>;
    waitingRoomGet(...call: Call<'waitingRoomGet'>): Result<Answer<'waitingRoomGet'>, Context>;
    waitingRoomPlaceInLine(...call: Call<'waitingRoomPlaceInLine'>): Result<Answer<'waitingRoomPlaceInLine'>, Context>;
    waitingRoomPositions(...call: Call<'waitingRoomPositions'>): Result<Answer<'waitingRoomPositions'>, Context>;
    waitingRoomLogHead(...call: Call<'waitingRoomLogHead'>): Result<Answer<'waitingRoomLogHead'>, Context>;
    waitingRoomLogArrivals(...call: Call<'waitingRoomLogArrivals'>): Result<Answer<'waitingRoomLogArrivals'>, Context>;
    waitingRoomAddCodes(...call: Call<'waitingRoomAddCodes'>): Result<Answer<'waitingRoomAddCodes'>, Context>;
    waitingRoomUseCode(...call: Call<'waitingRoomUseCode'>): Result<Answer<'waitingRoomUseCode'>, Context>;
    waitingRoomCodeCounts(...call: Call<'waitingRoomCodeCounts'>): Result<Answer<'waitingRoomCodeCounts'>, Context>;
    waitingRoomMarkSeen(...call: Call<'waitingRoomMarkSeen'>): Result<Answer<'waitingRoomMarkSeen'>, Context>;
    waitingRoomRecentReleases(...call: Call<'waitingRoomRecentReleases'>): Result<Answer<'waitingRoomRecentReleases'>, Context>;
    waitingRoomTouch(...call: Call<'waitingRoomTouch'>): Result<Answer<'waitingRoomTouch'>, Context>;
    waitingRoomRelease(...call: Call<'waitingRoomRelease'>): Result<Answer<'waitingRoomRelease'>, Context>;
    waitingRoomReleaseDue(...call: Call<'waitingRoomReleaseDue'>): Result<Answer<'waitingRoomReleaseDue'>, Context>;
    waitingRoomDropAbandoned(...call: Call<'waitingRoomDropAbandoned'>): Result<Answer<'waitingRoomDropAbandoned'>, Context>;
    waitingRoomTakeHeld(...call: Call<'waitingRoomTakeHeld'>): Result<Answer<'waitingRoomTakeHeld'>, Context>;
    waitingRoomUntakeHeld(...call: Call<'waitingRoomUntakeHeld'>): Result<Answer<'waitingRoomUntakeHeld'>, Context>;
    waitingRoomMoveSession(...call: Call<'waitingRoomMoveSession'>): Result<Answer<'waitingRoomMoveSession'>, Context>;
    waitingRoomOfferHandoff(...call: Call<'waitingRoomOfferHandoff'>): Result<Answer<'waitingRoomOfferHandoff'>, Context>;
    waitingRoomTakeHandoff(...call: Call<'waitingRoomTakeHandoff'>): Result<Answer<'waitingRoomTakeHandoff'>, Context>;
    waitingRoomMovedAway(...call: Call<'waitingRoomMovedAway'>): Result<Answer<'waitingRoomMovedAway'>, Context>;
    waitingRoomStats(...call: Call<'waitingRoomStats'>): Result<Answer<'waitingRoomStats'>, Context>;
    waitingRoomPartedPace(...call: Call<'waitingRoomPartedPace'>): Result<Answer<'waitingRoomPartedPace'>, Context>;
    waitingRoomPartedMoved(...call: Call<'waitingRoomPartedMoved'>): Result<Answer<'waitingRoomPartedMoved'>, Context>;
    waitingRoomPartedCount(...call: Call<'waitingRoomPartedCount'>): Result<Answer<'waitingRoomPartedCount'>, Context>;
    waitingRoomPartedCodePlace(...call: Call<'waitingRoomPartedCodePlace'>): Result<Answer<'waitingRoomPartedCodePlace'>, Context>;
    waitingRoomPartedCodeTake(...call: Call<'waitingRoomPartedCodeTake'>): Result<Answer<'waitingRoomPartedCodeTake'>, Context>;
    waitingRoomPartedCodeReturn(...call: Call<'waitingRoomPartedCodeReturn'>): Result<Answer<'waitingRoomPartedCodeReturn'>, Context>;
    waitingRoomSetPaused(...call: Call<'waitingRoomSetPaused'>): Result<Answer<'waitingRoomSetPaused'>, Context>;
    waitingRoomLimits(...call: Call<'waitingRoomLimits'>): Result<Answer<'waitingRoomLimits'>, Context>;
    waitingRoomSetLimits(...call: Call<'waitingRoomSetLimits'>): Result<Answer<'waitingRoomSetLimits'>, Context>;
    waitingRoomChallengeDifficulty(...call: Call<'waitingRoomChallengeDifficulty'>): Result<Answer<'waitingRoomChallengeDifficulty'>, Context>;
    waitingRoomSetChallengeDifficulty(...call: Call<'waitingRoomSetChallengeDifficulty'>): Result<Answer<'waitingRoomSetChallengeDifficulty'>, Context>;
    waitingRoomMessage(...call: Call<'waitingRoomMessage'>): Result<Answer<'waitingRoomMessage'>, Context>;
    waitingRoomSetMessage(...call: Call<'waitingRoomSetMessage'>): Result<Answer<'waitingRoomSetMessage'>, Context>;
    waitingRoomEvents(...call: Call<'waitingRoomEvents'>): Result<Answer<'waitingRoomEvents'>, Context>;
    waitingRoomSaveEvents(...call: Call<'waitingRoomSaveEvents'>): Result<Answer<'waitingRoomSaveEvents'>, Context>;
    waitingRoomEventState(...call: Call<'waitingRoomEventState'>): Result<Answer<'waitingRoomEventState'>, Context>;
    waitingRoomStartPrequeue(...call: Call<'waitingRoomStartPrequeue'>): Result<Answer<'waitingRoomStartPrequeue'>, Context>;
    waitingRoomOpenEvent(...call: Call<'waitingRoomOpenEvent'>): Result<Answer<'waitingRoomOpenEvent'>, Context>;
    waitingRoomEntrantsOf(...call: Call<'waitingRoomEntrantsOf'>): Result<Answer<'waitingRoomEntrantsOf'>, Context>;
    waitingRoomPlaceDrawn(...call: Call<'waitingRoomPlaceDrawn'>): Result<Answer<'waitingRoomPlaceDrawn'>, Context>;
    waitingRoomDrawUnkeyed(...call: Call<'waitingRoomDrawUnkeyed'>): Result<Answer<'waitingRoomDrawUnkeyed'>, Context>;
    waitingRoomAddDrawKeys(...call: Call<'waitingRoomAddDrawKeys'>): Result<Answer<'waitingRoomAddDrawKeys'>, Context>;
    waitingRoomClaimAnnouncement(...call: Call<'waitingRoomClaimAnnouncement'>): Result<Answer<'waitingRoomClaimAnnouncement'>, Context>;
    waitingRoomCountAfter(...call: Call<'waitingRoomCountAfter'>): Result<Answer<'waitingRoomCountAfter'>, Context>;
    waitingRoomForgetEvent(...call: Call<'waitingRoomForgetEvent'>): Result<Answer<'waitingRoomForgetEvent'>, Context>;
    waitingRoomUpgradeListLine(line: string, waiting: string, seen: string, prefix: string): Result<number, Context>;
  }
}

/** Each command's script in `lua/`; true: an event's, run after event-prelude.lua too. */
const SCRIPTS: Record<CommandName, readonly [file: string, events?: true]> = {
  waitingRoomAdmit: ['admit'],
  waitingRoomRevoke: ['revoke'],
  waitingRoomRevocations: ['revocations'],
  waitingRoomHold: ['hold'],
  waitingRoomArrive: ['arrive'],
  waitingRoomEnterLine: ['enter-line'],
  waitingRoomDropPending: ['drop-pending'],
  waitingRoomGet: ['get'],
  waitingRoomPlaceInLine: ['place-in-line'],
  waitingRoomPositions: ['positions'],
  waitingRoomLogHead: ['log-head'],
  waitingRoomLogArrivals: ['log-arrivals'],
  waitingRoomMarkSeen: ['mark-seen'],
  waitingRoomAddCodes: ['add-codes'],
  waitingRoomUseCode: ['use-code'],
  waitingRoomCodeCounts: ['code-counts'],
  waitingRoomRecentReleases: ['recent-releases'],
  waitingRoomTouch: ['touch'],
  waitingRoomRelease: ['release'],
  waitingRoomReleaseDue: ['release-due'],
  waitingRoomDropAbandoned: ['drop-abandoned'],
  waitingRoomTakeHeld: ['take-held'],
  waitingRoomUntakeHeld: ['untake-held'],
  waitingRoomMoveSession: ['move-session'],
  waitingRoomOfferHandoff: ['offer-handoff'],
  waitingRoomTakeHandoff: ['take-handoff'],
  waitingRoomMovedAway: ['moved-away'],
  waitingRoomStats: ['stats'],
  waitingRoomSetPaused: ['set-paused'],
  waitingRoomPartedPace: ['parted-pace'],
  waitingRoomPartedMoved: ['parted-moved'],
  waitingRoomPartedCount: ['parted-count'],
  waitingRoomPartedCodePlace: ['parted-code-place'],
  waitingRoomPartedCodeTake: ['parted-code-take'],
  waitingRoomPartedCodeReturn: ['parted-code-return'],
  waitingRoomLimits: ['limits'],
  waitingRoomSetLimits: ['set-limits'],
  waitingRoomChallengeDifficulty: ['challenge-difficulty'],
  waitingRoomSetChallengeDifficulty: ['set-challenge-difficulty'],
  waitingRoomMessage: ['message'],
  waitingRoomSetMessage: ['set-message'],
  waitingRoomEvents: ['events', true],
  waitingRoomSaveEvents: ['save-events', true],
  waitingRoomEventState: ['event-state', true],
  waitingRoomStartPrequeue: ['start-prequeue', true],
  waitingRoomOpenEvent: ['open-event', true],
  waitingRoomEntrantsOf: ['entrants-of', true],
  waitingRoomPlaceDrawn: ['place-drawn', true],
  waitingRoomDrawUnkeyed: ['draw-unkeyed', true],
  waitingRoomAddDrawKeys: ['add-draw-keys', true],
  waitingRoomClaimAnnouncement: ['claim-announcement', true],
  waitingRoomCountAfter: ['count-after', true],
  waitingRoomForgetEvent: ['forget-event', true],
};

const COMMAND_NAMES = Object.keys(SCRIPTS) as CommandName[];

const lua = (name: string) => readLua(`store/redis/lua/${name}.lua`);

/**
 * The full source of each command, read once: its constants, the shared functions, then its body,
 * run as a function so that whatever it changed in the line is logged once it returns, wherever
 * it returns (`publishChanges`). Every command answers {the line's version after it, 1 when
 * arrivals wait to be logged, its own answer}; an error is answered as it is.
 */
function commandSources(): Record<CommandName, string> {
  const constants = Object.entries(CONSTANTS)
    .map(([name, value]) => `local ${name} = ${JSON.stringify(value)}`)
    .join('\n');
  const prelude = lua('prelude');
  const eventPrelude = lua('event-prelude');
  const sources = {} as Record<CommandName, string>;
  for (const name of COMMAND_NAMES) {
    const [file, events] = SCRIPTS[name];
    sources[name] = `${constants}
${prelude}
local function body()
${events ? eventPrelude : ''}${lua(file)}
end
local answer = body()
local version = publishChanges()
if type(answer) == 'table' and answer.err then return answer end
return {version, arrivalsWait, answer}
`;
  }
  return sources;
}

/** Each command's full source, built at the first client's definition. */
let sources: Record<CommandName, string> | undefined;

/** Defines the store's commands on `client`, once (a client shared by the rooms of a process has them from the first). */
export function defineStoreCommands(client: RedisClient): void {
  if (Object.hasOwn(client, 'waitingRoomAdmit')) return;
  sources ??= commandSources();
  for (const name of COMMAND_NAMES) client.defineCommand(name, { lua: sources[name], numberOfKeys: SCRIPT_KEYS.length });
  client.defineCommand('waitingRoomUpgradeListLine', { lua: lua('upgrade-list-line'), numberOfKeys: 3 });
}
