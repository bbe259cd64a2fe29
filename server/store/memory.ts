import { randomUUID } from 'node:crypto';
import { PlacesPerAddressError } from './errors';
import { readMemoryStoreState, MEMORY_STATE_VERSION, type KeptDraw, type MemoryStoreState } from './memory-state';
import { RELEASES_KEPT } from '../domain/estimate';
import { MemoryReport } from './report-memory';
import { PriorityLine } from './priority-line';
import { EndOrder } from './end-order';
import { HANDOFF_RECORD_MS, MOVED_MARK_MS, type HandoffOffer, type HandoffOutcome } from './handoff';
import type { DrawKey, DrawStep, EventState, StoredEvents, UnkeyedEntrants } from './event-store';
import type { DropEvent } from '../domain/events/event';
import type {
  AdmissionLimits,
  Arrival,
  CodeCounts,
  CodeGuessLimits,
  CodeUse,
  Entry,
  EntryState,
  HeldRequest,
  HoldOptions,
  LimitChange,
  LimitOverrides,
  MessageTexts,
  PlaceInLine,
  Position,
  QueueStore,
  RecentReleases,
  Release,
  ReleasePolicy,
  Revocation,
  RevocationsRead,
  Stats,
  StoredMessage,
} from './types';
import { MOVE_INTERVAL_MS, PRIORITY_TICKET_BASE, REVOCATIONS_PER_READ, isPriorityTicket, revocationCursor, revocationsAfter, revokedSlot } from './types';

export type { MemoryStoreState } from './memory-state';

/** How many release times are kept for the wait estimate. */
export const RECENT_RELEASES = RELEASES_KEPT;

/** Most abandoned places one `dropAbandoned` drops, so that one call never holds the store for long. */
export const ABANDON_BATCH = 1000;

type MutableEntry = { -readonly [K in keyof Entry]: Entry[K] };

/** An event's state, with its draw as it is placed (`KeptDraw`). */
type KeptEventState = KeptDraw;

export interface MemoryStoreOptions {
  /** Numbers in [0, 1) for the draws of `random` releases; Math.random by default. */
  readonly random?: () => number;
}

/**
 * The queue in this process's memory: one instance, nothing to install. Every method runs to
 * completion without awaiting, so each is atomic by construction.
 *
 * The line is kept in ticket order with each place's rank (`RankedLine`), since places go from
 * its middle too (visitors who walked away): a position is the rank among those still waiting,
 * in O(log n). `served` counts the places that have left its head.
 */
export class MemoryStore implements QueueStore {
  private readonly entries = new Map<string, MutableEntry>();
  private readonly entryBySession = new Map<string, string>();
  /** Session id → admitted until (ms). */
  private readonly admitted = new Map<string, number>();
  /**
   * Every end set in `admitted`, soonest first: `expireAdmissions` takes only those that have
   * come, so that neither an arrival nor a release step reads every admission.
   */
  private readonly ends = new EndOrder();
  private readonly line = new PriorityLine();
  /**
   * The waiting places, longest silent first: a Map iterates in insertion order, and every sign
   * of life moves the place to the end (`seen`). The clock only goes forward, so this is the order
   * of last seen, and the sweep stops at the first place still within the abandon time.
   */
  private readonly silence = new Map<string, MutableEntry>();
  /**
   * No place in `silence` was last seen before this (ms): the sweep reads the silence order only
   * once one may be silent for too long. Reading a Map from its start also steps over every place
   * taken from its head since the Map was last rebuilt, hundreds of thousands in a long line.
   */
  private silentSince = Number.NEGATIVE_INFINITY;
  /**
   * The pending places, soonest dropped first: every place is pending for the same time from its
   * hold, and a later hold that extends it moves it to the end, so the sweep stops at the first
   * place still within its time.
   */
  private readonly pending = new Map<string, MutableEntry>();
  /** No place in `pending` is kept beyond this (ms), as `silentSince` for the pending order. */
  private pendingSince = Number.NEGATIVE_INFINITY;
  /** Address key → places pending or waiting that count against it. */
  private readonly addresses = new Map<string, number>();
  private served = 0;
  /** The `served` last told as a move, and when (see `Release.moved`). */
  private moveTold = { served: 0, at: Number.NEGATIVE_INFINITY };
  private nextTicket = 1;
  /** The next code holder's ticket, counted from `PRIORITY_TICKET_BASE`. */
  private nextPriority = 1;
  /** A priority code's hash → when it expires (ms); gone once used. */
  private readonly codes = new Map<string, number>();
  private codesIssued = 0;
  private codesUsed = 0;
  /** Wrong codes by place (uuid), for as long as the place lasts. */
  private readonly placeGuesses = new Map<string, number>();
  /** Wrong codes by address key, each count until its window ends (ms). */
  private readonly addressGuesses = new Map<string, { count: number; until: number }>();
  /** Released uuids in release order, to forget them once their admission ends; those before `releasedHead` are forgotten. */
  private releasedOrder: string[] = [];
  private releasedHead = 0;
  private releasedTotal = 0;
  /**
   * The last release times, newest first. Never changed in place, only replaced: every answer
   * shares the one in force instead of a copy for each visitor who asks.
   */
  private releaseTimes: readonly number[] = [];
  private paused = false;
  private overrides: LimitOverrides = {};
  private difficulty?: number;
  private roomMessage?: StoredMessage;
  private bucket = { tokens: Number.NaN, at: 0 };
  private eventList: StoredEvents = { version: 0, events: [] };
  private readonly eventStates = new Map<string, KeptEventState>();
  private readonly random: () => number;
  /**
   * Revoked admissions by session, in the order of their sequence numbers (a session revoked
   * again moves to the end): the revocation feed, each kept until its admission would have ended.
   */
  private readonly revoked = new Map<string, { readonly expiresAt: number; readonly sequence: number }>();
  private revocationSequence = 0;
  private revocationEpoch: string = randomUUID();
  /** The report (`MemoryReport`): not part of the state a restart reads. */
  private readonly report = new MemoryReport();

  reportArrival: QueueStore['reportArrival'] = (...args) => this.report.reportArrival(...args);
  reportReleases: QueueStore['reportReleases'] = (...args) => this.report.reportReleases(...args);
  reportReplay: QueueStore['reportReplay'] = (...args) => this.report.reportReplay(...args);
  reportCount: QueueStore['reportCount'] = (...args) => this.report.reportCount(...args);
  reportSample: QueueStore['reportSample'] = (...args) => this.report.reportSample(...args);
  reportRead: QueueStore['reportRead'] = (...args) => this.report.reportRead(...args);

  /** The links to move a place (`offerHandoff`) by key, with the session that opened each once used. */
  private readonly handoffs = new Map<string, HandoffOffer & { to?: string }>();
  /** Old uuid of a moved place → until when it answers "moved". */
  private readonly movedUuids = new Map<string, number>();
  /** When the links and moved marks were last swept of those past their time. */
  private handoffsSwept = 0;

  constructor(options: MemoryStoreOptions = {}) {
    this.random = options.random ?? Math.random;
  }

  /**
   * A store that goes on from a state `toState` wrote, read back from JSON. The state is checked
   * whole first: a corrupt or foreign one throws an Error saying what is wrong.
   */
  static fromState(state: unknown): MemoryStore {
    const saved = readMemoryStoreState(state);
    const store = new MemoryStore();
    const entries = saved.entries.map((entry): MutableEntry => ({ ...entry }));
    for (const entry of [...entries].sort((a, b) => a.ticket - b.ticket)) {
      store.entries.set(entry.uuid, entry);
      if (entry.state === 'waiting') store.line.push(entry.ticket, entry.uuid);
      if (entry.address !== undefined && entry.state !== 'released') store.count(entry.address, 1);
    }
    for (const entry of entries.filter((one) => one.state === 'pending').sort((a, b) => a.pendingUntil! - b.pendingUntil!)) {
      store.pending.set(entry.uuid, entry);
    }
    const waiting = entries.filter((entry) => entry.state === 'waiting');
    for (const entry of waiting.sort((a, b) => a.lastSeen - b.lastSeen || a.ticket - b.ticket)) {
      store.silence.set(entry.uuid, entry);
    }
    store.releasedOrder = entries
      .filter((entry) => entry.state === 'released')
      .sort((a, b) => a.releasedAt! - b.releasedAt! || a.ticket - b.ticket)
      .map((entry) => entry.uuid);
    for (const [sessionId, uuid] of saved.sessions) store.entryBySession.set(sessionId, uuid);
    for (const [sessionId, until] of saved.admitted) store.admitUntil(sessionId, until);
    store.served = saved.served;
    store.nextTicket = saved.nextTicket;
    // The code holders still waiting keep their order; the next one goes behind them.
    store.nextPriority = 1 + Math.max(0, ...entries.filter((entry) => isPriorityTicket(entry.ticket)).map((entry) => entry.ticket - PRIORITY_TICKET_BASE));
    if (saved.codes) {
      store.codesIssued = saved.codes.issued;
      store.codesUsed = saved.codes.used;
      for (const [hash, expiresAt] of saved.codes.list) store.codes.set(hash, expiresAt);
    }
    store.releasedTotal = saved.releasedTotal;
    store.releaseTimes = saved.releaseTimes.slice(0, RECENT_RELEASES);
    store.paused = saved.paused;
    store.overrides = { ...saved.limits };
    store.difficulty = saved.challengeDifficulty;
    store.roomMessage = saved.message;
    store.bucket = { tokens: saved.bucket.tokens ?? Number.NaN, at: saved.bucket.at };
    if (saved.revocations) {
      store.revocationEpoch = saved.revocations.epoch;
      store.revocationSequence = saved.revocations.sequence;
      for (const [session, expiresAt, sequence] of saved.revocations.list) store.revoked.set(session, { expiresAt, sequence });
    }
    if (saved.events) {
      store.eventList = { version: saved.events.version, events: saved.events.list };
      for (const [id, state] of saved.events.states) store.eventStates.set(id, state);
    }
    return store;
  }

  /** The whole state as plain JSON-ready data, for `fromState` after a restart. */
  toState(): MemoryStoreState {
    return {
      version: MEMORY_STATE_VERSION,
      entries: [...this.entries.values()].map((entry) => ({ ...entry })),
      sessions: [...this.entryBySession],
      admitted: [...this.admitted],
      served: this.served,
      nextTicket: this.nextTicket,
      releasedTotal: this.releasedTotal,
      releaseTimes: [...this.releaseTimes],
      paused: this.paused,
      limits: { ...this.overrides },
      ...(this.difficulty !== undefined && { challengeDifficulty: this.difficulty }),
      ...(this.roomMessage !== undefined && { message: this.roomMessage }),
      // NaN (not yet filled) has no JSON form.
      bucket: { tokens: Number.isNaN(this.bucket.tokens) ? null : this.bucket.tokens, at: this.bucket.at },
      events: { version: this.eventList.version, list: [...this.eventList.events], states: [...this.eventStates] },
      codes: { issued: this.codesIssued, used: this.codesUsed, list: [...this.codes] },
      revocations: {
        epoch: this.revocationEpoch,
        sequence: this.revocationSequence,
        list: [...this.revoked].map(([session, { expiresAt, sequence }]) => [session, expiresAt, sequence] as const),
      },
    };
  }

  async admit(sessionId: string, now: number, limits: AdmissionLimits): Promise<boolean> {
    return this.admitNow(sessionId, now, limits);
  }

  private admitNow(sessionId: string, now: number, limits: AdmissionLimits): boolean {
    this.expireAdmissions(now);
    if ((this.admitted.get(sessionId) ?? 0) > now) return true;
    if (this.line.size > 0 || this.admitted.size >= limits.activeLimit) return false;
    this.admitUntil(sessionId, this.admissionEnd(sessionId, now, limits.sessionMs));
    return true;
  }

  /**
   * When an admission starting at `now` ends: `sessionMs` later, and at least a second after the
   * session's revoked admission, whose passes would otherwise be this one's too.
   */
  private admissionEnd(sessionId: string, now: number, sessionMs: number): number {
    const revoked = this.revoked.get(sessionId);
    return Math.max(now + sessionMs, revoked === undefined ? 0 : (revoked.expiresAt + 1) * 1000);
  }

  async admittedUntil(sessionId: string, now: number): Promise<number | undefined> {
    const until = this.admitted.get(sessionId);
    return until !== undefined && until > now ? until : undefined;
  }

  async revoke(sessionId: string, now: number, keepSlotMs = 0): Promise<boolean> {
    this.expireAdmissions(now);
    const until = this.admitted.get(sessionId);
    if (until === undefined) return false;
    this.admitted.delete(sessionId);
    const slot = revokedSlot(sessionId);
    const kept = Math.max(Math.min(until, now + keepSlotMs), this.admitted.get(slot) ?? 0);
    if (kept > now) this.admitUntil(slot, kept);
    this.forgetRevocations(now);
    this.revoked.delete(sessionId);
    this.revoked.set(sessionId, { expiresAt: Math.floor(until / 1000), sequence: ++this.revocationSequence });
    return true;
  }

  async revocations(since: string | undefined, now: number): Promise<RevocationsRead> {
    this.forgetRevocations(now);
    const after = revocationsAfter(since, this.revocationEpoch);
    const revoked: Revocation[] = [];
    let last = after;
    let more = false;
    for (const [session, { expiresAt, sequence }] of this.revoked) {
      if (sequence <= after || expiresAt * 1000 <= now) continue;
      if (revoked.length === REVOCATIONS_PER_READ) {
        more = true;
        break;
      }
      revoked.push({ session, expiresAt });
      last = sequence;
    }
    return { revoked, cursor: revocationCursor(this.revocationEpoch, more ? last : this.revocationSequence), more };
  }

  /** Forgets, from the oldest, the revocations whose admissions have ended: their passes have expired. */
  private forgetRevocations(now: number): void {
    for (const [session, { expiresAt }] of this.revoked) {
      if (expiresAt * 1000 > now) break;
      this.revoked.delete(session);
    }
  }

  async hold(sessionId: string, userId: number, request: HeldRequest, now: number, options: HoldOptions = {}): Promise<Entry> {
    return { ...this.holdEntry(sessionId, userId, request, now, options) };
  }

  /** `hold`, giving the place itself: it is seen at `now`, at the end of the silence order when it waits. */
  private holdEntry(sessionId: string, userId: number, request: HeldRequest, now: number, options: HoldOptions = {}): MutableEntry {
    const current = this.entryFor(sessionId);
    if (current && current.state !== 'released') {
      Object.assign(current, options.keepRequest ? { userId } : { request, userId });
      if (current.state === 'pending') {
        if (options.pendingUntil === undefined) this.enter(current, now);
        else if (options.pendingUntil > current.pendingUntil!) this.keepPending(current, options.pendingUntil);
      }
      this.seen(current, now);
      return current;
    }
    const { address, placesPerAddress = 0 } = options;
    if (address !== undefined && placesPerAddress > 0 && (this.addresses.get(address) ?? 0) >= placesPerAddress) {
      throw new PlacesPerAddressError(placesPerAddress);
    }
    if (current) this.forget(current.uuid);
    const entry: MutableEntry = {
      uuid: flatUuid(),
      sessionId,
      userId,
      ticket: 0,
      request,
      state: 'pending',
      heldAt: now,
      lastSeen: now,
      replayed: false,
    };
    this.entries.set(entry.uuid, entry);
    this.entryBySession.set(sessionId, entry.uuid);
    if (address !== undefined) {
      entry.address = address;
      this.count(address, 1);
    }
    if (options.pendingUntil === undefined) this.enter(entry, now);
    else this.keepPending(entry, options.pendingUntil);
    return entry;
  }

  async enterLine(uuid: string, now: number): Promise<EntryState | undefined> {
    const entry = this.entries.get(uuid);
    if (entry?.state === 'pending') this.enter(entry, now);
    return entry?.state;
  }

  async dropPending(uuid: string): Promise<boolean> {
    if (this.entries.get(uuid)?.state !== 'pending') return false;
    this.forget(uuid);
    return true;
  }

  async get(uuid: string): Promise<Entry | undefined> {
    const entry = this.entries.get(uuid);
    return entry && { ...entry };
  }

  async arrive(
    sessionId: string,
    userId: number,
    request: HeldRequest,
    now: number,
    limits: AdmissionLimits | undefined,
    options?: HoldOptions,
  ): Promise<Arrival> {
    if (limits && this.admitNow(sessionId, now, limits)) return { admitted: true };
    // Held, the place was seen now: what `placeInLine` would say of it.
    const entry = this.holdEntry(sessionId, userId, request, now, options);
    return { admitted: false, place: { entry: { ...entry }, position: this.positionOf(entry), served: this.served } };
  }

  async placeInLine(uuid: string, now: number): Promise<PlaceInLine | undefined> {
    const entry = this.entries.get(uuid);
    if (!entry) return undefined;
    this.seen(entry, now);
    return { entry: { ...entry }, position: this.positionOf(entry), recentReleases: this.releaseTimes, served: this.served };
  }

  async position(uuid: string, now: number): Promise<Position | undefined> {
    const entry = this.entries.get(uuid);
    if (!entry) return undefined;
    this.seen(entry, now);
    const position = { position: this.positionOf(entry), ticket: entry.ticket, served: this.served };
    return entry.state === 'pending' ? { ...position, pending: true } : position;
  }

  async recentReleases(): Promise<RecentReleases> {
    return { served: this.served, times: this.releaseTimes };
  }

  async touch(uuid: string, now: number): Promise<boolean> {
    const entry = this.entries.get(uuid);
    if (!entry) return false;
    this.seen(entry, now);
    return true;
  }

  async release(count: number, now: number, policy: ReleasePolicy): Promise<Release> {
    const { released, served } = this.releaseNext(count, now, policy);
    // An operator's release tells the pages at once.
    return { released, served, moved: this.tellMove(now, 0) };
  }

  private releaseNext(count: number, now: number, policy: ReleasePolicy): { released: Entry[]; served: number } {
    const released: Entry[] = [];
    const limit = this.drawnUpTo(policy.drawing);
    while (released.length < count) {
      // While a draw is placed, only the places up to its placed mark may leave.
      const size = limit === undefined ? this.line.size : this.line.countUpTo(limit);
      if (size === 0) break;
      // A draw is among those without a code: the code holders leave first, from the head.
      const drawn = policy.random && this.line.countUpTo(0) === 0;
      const uuid = drawn ? this.line.removeAt(1 + Math.floor(this.random() * size)) : this.line.shift();
      if (uuid === undefined) break;
      if (!drawn) this.served++;
      this.silence.delete(uuid);
      const entry = this.entries.get(uuid);
      if (!entry) continue;
      if (now - entry.lastSeen > policy.abandonMs) {
        this.forget(uuid);
        continue;
      }
      this.uncount(entry);
      entry.state = 'released';
      entry.releasedAt = now;
      this.admitUntil(entry.sessionId, this.admissionEnd(entry.sessionId, now, policy.sessionMs));
      this.releasedOrder.push(entry.uuid);
      this.releasedTotal++;
      released.push({ ...entry });
    }
    // Every release of this step at `now`, newest first, before the older ones.
    const times = Math.min(released.length, RECENT_RELEASES);
    if (times > 0) this.releaseTimes = new Array<number>(times).fill(now).concat(this.releaseTimes.slice(0, RECENT_RELEASES - times));
    return { released, served: this.served };
  }

  /** The last ticket a release may reach while event `id`'s draw is placed (see `ReleasePolicy.drawing`). */
  private drawnUpTo(id: string | undefined): number | undefined {
    if (id === undefined) return undefined;
    const state = this.eventStates.get(id) ?? {};
    return state.drawn ? undefined : (state.placedUpTo ?? state.afterTicket ?? 0);
  }

  async releaseAgain(): Promise<Release | undefined> {
    return undefined;
  }

  async releaseDue(now: number, policy: ReleasePolicy): Promise<Release> {
    this.expireAdmissions(now);
    this.forgetExpired(now, Math.min(policy.claimMs ?? policy.sessionMs, policy.sessionMs));
    let released: Entry[] = [];
    if (!this.paused && policy.perMinute > 0) {
      const tokens = this.refill(now, policy.perMinute);
      const count = Math.min(wholeTokens(tokens), policy.activeLimit - this.admitted.size);
      if (count > 0) {
        released = this.releaseNext(count, now, policy).released;
        this.bucket.tokens -= released.length;
      }
    }
    return { released, served: this.served, moved: this.tellMove(now, MOVE_INTERVAL_MS) };
  }

  /** Whether to tell the pages the line moved now: `served` grew since the last move told, `interval` ago or more. */
  private tellMove(now: number, interval: number): boolean {
    if (this.served <= this.moveTold.served || now - this.moveTold.at < interval) return false;
    this.moveTold = { served: this.served, at: now };
    return true;
  }

  async dropAbandoned(now: number, abandonMs: number): Promise<number> {
    let dropped = 0;
    if (now - this.silentSince > abandonMs) {
      this.silentSince = Number.POSITIVE_INFINITY;
      for (const [uuid, entry] of this.silence) {
        if (dropped >= ABANDON_BATCH || now - entry.lastSeen <= abandonMs) {
          this.silentSince = entry.lastSeen;
          break;
        }
        this.forget(uuid);
        dropped++;
      }
    }
    if (this.pendingSince <= now) {
      this.pendingSince = Number.POSITIVE_INFINITY;
      let expired = 0;
      for (const [uuid, entry] of this.pending) {
        if (expired >= ABANDON_BATCH || entry.pendingUntil! > now) {
          this.pendingSince = entry.pendingUntil!;
          break;
        }
        this.forget(uuid);
        expired++;
      }
    }
    return dropped;
  }

  async takeHeld(uuid: string, sessionId: string): Promise<HeldRequest | undefined> {
    const entry = this.entries.get(uuid);
    if (!entry || entry.sessionId !== sessionId || entry.state !== 'released' || entry.replayed) {
      return undefined;
    }
    entry.replayed = true;
    const held = entry.request;
    // Replayed once, never again: the body's bytes are given back now, not when the admission ends.
    const { body: _replayed, ...rest } = held;
    entry.request = rest;
    return held;
  }

  async moveSession(from: string, to: string, userId: number): Promise<void> {
    const entry = this.entryFor(from);
    const until = this.admitted.get(from);
    if (!entry && until === undefined) return;
    if (to !== from) {
      const replaced = this.entryFor(to);
      if (replaced) this.forget(replaced.uuid);
      this.admitted.delete(to);
    }
    this.entryBySession.delete(from);
    this.admitted.delete(from);
    if (entry) {
      Object.assign(entry, { sessionId: to, userId });
      this.entryBySession.set(to, entry.uuid);
    }
    if (until !== undefined) this.admitUntil(to, until);
  }

  async addCodes(hashes: readonly string[], now: number, expiresAt: number): Promise<void> {
    for (const [hash, until] of this.codes) if (until <= now) this.codes.delete(hash);
    for (const hash of hashes) this.codes.set(hash, expiresAt);
    this.codesIssued += hashes.length;
  }

  async useCode(sessionId: string, hash: string, now: number, limits: CodeGuessLimits): Promise<CodeUse> {
    const entry = this.entryFor(sessionId);
    if (!entry) return { outcome: 'no-place' };
    if (entry.state !== 'waiting') return { outcome: 'not-waiting' };
    if (isPriorityTicket(entry.ticket)) return { outcome: 'ahead', position: this.positionOf(entry) };
    const byAddress = this.addressGuesses.get(limits.address);
    const addressCount = byAddress && byAddress.until > now ? byAddress.count : 0;
    if ((limits.address !== '' && addressCount >= limits.perAddress) || (this.placeGuesses.get(entry.uuid) ?? 0) >= limits.perPlace) {
      return { outcome: 'limited' };
    }
    const expiresAt = this.codes.get(hash);
    if (expiresAt === undefined || expiresAt <= now) {
      this.placeGuesses.set(entry.uuid, (this.placeGuesses.get(entry.uuid) ?? 0) + 1);
      if (limits.address !== '') {
        this.addressGuesses.set(limits.address, { count: addressCount + 1, until: addressCount === 0 ? now + limits.windowMs : byAddress!.until });
      }
      return { outcome: 'wrong' };
    }
    this.codes.delete(hash);
    this.codesUsed++;
    this.line.remove(entry.ticket);
    entry.ticket = PRIORITY_TICKET_BASE + this.nextPriority++;
    this.line.push(entry.ticket, entry.uuid);
    return { outcome: 'moved', position: this.positionOf(entry) };
  }

  async codeCounts(): Promise<CodeCounts> {
    return { issued: this.codesIssued, used: this.codesUsed };
  }

  async offerHandoff(key: string, offer: HandoffOffer, now: number): Promise<boolean> {
    this.sweepHandoffs(now);
    const entry = this.entries.get(offer.uuid);
    if (!entry || !movable(entry, offer.sessionId)) return false;
    this.handoffs.set(key, { ...offer });
    return true;
  }

  async takeHandoff(key: string, to: string, newUuid: string, now: number): Promise<HandoffOutcome<Entry>> {
    this.sweepHandoffs(now);
    const offer = this.handoffs.get(key);
    if (!offer || now >= offer.expiresAt + HANDOFF_RECORD_MS) return { moved: false, refusal: 'unknown' };
    if (offer.to !== undefined) return { moved: false, refusal: 'used' };
    if (now >= offer.expiresAt) return { moved: false, refusal: 'expired' };
    offer.to = to;
    const entry = this.entries.get(offer.uuid);
    if (!entry || !movable(entry, offer.sessionId)) return { moved: false, refusal: 'gone' };
    const from = entry.uuid;
    const until = this.admitted.get(offer.sessionId);
    // The same ticket under the new uuid: in the line, the silence order (seen now), the released order.
    this.entries.delete(from);
    this.silence.delete(from);
    entry.uuid = newUuid;
    entry.sessionId = to;
    entry.lastSeen = now;
    this.entries.set(newUuid, entry);
    if (entry.state === 'waiting') {
      this.line.assign(entry.ticket, newUuid);
      this.silence.set(newUuid, entry);
      this.silentSince = Math.min(this.silentSince, now);
    } else {
      const at = this.releasedOrder.indexOf(from, this.releasedHead);
      if (at >= 0) this.releasedOrder[at] = newUuid;
    }
    this.entryBySession.delete(offer.sessionId);
    this.entryBySession.set(to, newUuid);
    this.admitted.delete(offer.sessionId);
    if (until !== undefined) this.admitUntil(to, until);
    this.movedUuids.set(from, now + MOVED_MARK_MS);
    return { moved: true, entry: { ...entry }, from, name: offer.name };
  }

  async movedAway(uuid: string, now: number): Promise<boolean> {
    return (this.movedUuids.get(uuid) ?? 0) > now;
  }

  /** Forgets, at most once a minute, the links and moved marks past their time. */
  private sweepHandoffs(now: number): void {
    if (now - this.handoffsSwept < 60_000) return;
    this.handoffsSwept = now;
    for (const [key, offer] of this.handoffs) if (now >= offer.expiresAt + HANDOFF_RECORD_MS) this.handoffs.delete(key);
    for (const [uuid, until] of this.movedUuids) if (now >= until) this.movedUuids.delete(uuid);
  }

  async stats(now: number): Promise<Stats> {
    this.expireAdmissions(now);
    return {
      waiting: this.line.size,
      pending: this.pending.size,
      active: this.admitted.size,
      released: this.releasedTotal,
      paused: this.paused,
      arrived: this.nextTicket - 1,
    };
  }

  async setPaused(paused: boolean): Promise<void> {
    this.paused = paused;
  }

  async limits(): Promise<LimitOverrides> {
    return { ...this.overrides };
  }

  async setLimits(change: LimitChange): Promise<LimitOverrides> {
    const next: Record<string, number> = { ...this.overrides };
    for (const [field, value] of Object.entries(change)) {
      if (value === null) delete next[field];
      else if (value !== undefined) next[field] = value;
    }
    this.overrides = next;
    return { ...next };
  }

  async events(): Promise<StoredEvents> {
    return this.eventList;
  }

  async saveEvents(version: number, events: readonly DropEvent[]): Promise<boolean> {
    if (version !== this.eventList.version) return false;
    this.eventList = { version: version + 1, events: [...events] };
    return true;
  }

  async eventState(id: string): Promise<EventState> {
    const {
      order: _order,
      keys: _keys,
      keysPlaced: _keysPlaced,
      keyedUpTo: _keyed,
      placedUpTo: _placed,
      frozen: _frozen,
      ...state
    } = this.eventStates.get(id) ?? {};
    return state;
  }

  async startPrequeue(id: string, seed: string | null): Promise<EventState> {
    const state = this.eventStates.get(id) ?? {};
    if (state.afterTicket === undefined) {
      this.eventStates.set(id, { ...state, ...(seed !== null && { seed }), afterTicket: this.nextTicket - 1 });
    }
    return this.eventState(id);
  }

  async openEvent(id: string): Promise<EventState> {
    const state = this.eventStates.get(id) ?? {};
    if (state.openTicket === undefined) {
      const last = this.nextTicket - 1;
      this.eventStates.set(id, { ...state, afterTicket: state.afterTicket ?? last, openTicket: last });
    }
    return this.eventState(id);
  }

  async entrantsOf(id: string): Promise<string[]> {
    const state = this.eventStates.get(id) ?? {};
    if (state.drawn) return [...(state.order ?? [])];
    if (state.afterTicket === undefined) return [];
    return this.line.between(state.afterTicket, state.openTicket ?? Number.POSITIVE_INFINITY);
  }

  async unkeyedEntrants(id: string, count: number): Promise<UnkeyedEntrants> {
    const state = this.eventStates.get(id) ?? {};
    if (state.afterTicket === undefined) return { uuids: [], mark: 0 };
    const from = state.keyedUpTo ?? state.afterTicket;
    const found = this.line.between(from, state.openTicket ?? Number.POSITIVE_INFINITY).slice(0, count);
    const last = found.length > 0 ? (this.entries.get(found[found.length - 1]) as MutableEntry).ticket : from;
    return { uuids: found, mark: state.openTicket !== undefined && found.length < count ? state.openTicket : last };
  }

  async addDrawKeys(id: string, keys: readonly DrawKey[], mark: number): Promise<void> {
    const state = this.eventStates.get(id) ?? {};
    // Once placing has begun every entrant was keyed: a late repeat adds nothing.
    if (state.drawn || state.placedUpTo !== undefined) return;
    const kept = new Set(state.keys);
    for (const { uuid, key } of keys) kept.add(key + uuid);
    this.eventStates.set(id, { ...state, keys: [...kept], keyedUpTo: Math.max(state.keyedUpTo ?? 0, mark) });
  }

  async placeDrawn(id: string, count: number): Promise<DrawStep | undefined> {
    const state = this.eventStates.get(id) ?? {};
    if (state.drawn) return { placed: 0, done: true };
    const { openTicket: open, afterTicket: after } = state;
    if (open === undefined || after === undefined || (state.keyedUpTo ?? after) < open) return undefined;
    // Sorted once, at the first step; each step takes the next keys, from `keysPlaced` on.
    const keys = state.placedUpTo === undefined ? [...(state.keys ?? [])].sort() : (state.keys ?? []);
    const from = state.keysPlaced ?? 0;
    const step = keys.slice(from, from + count);
    const order = (state.order ?? []) as string[];
    let mark = state.placedUpTo ?? after;
    // In process, the step moves its entrants still waiting above the mark to the first tickets
    // above it, in draw order, and a holder not drawn takes a ticket one of them left (Redis keyed
    // them into their slots as they came instead, so that its opening moves nobody).
    const drawn: MutableEntry[] = [];
    const taken = new Set<string>();
    for (const member of step) {
      const entry = this.entries.get(member.slice(64));
      if (entry?.state !== 'waiting' || entry.ticket <= mark || entry.ticket > open || taken.has(entry.uuid)) continue;
      taken.add(entry.uuid);
      drawn.push(entry);
    }
    const first: { ticket: number; uuid: string }[] = [];
    for (let ticket = mark; first.length < drawn.length; ticket = first[first.length - 1].ticket) {
      first.push(this.line.firstAfter(ticket) as { ticket: number; uuid: string });
    }
    if (drawn.length > 0) {
      const last = first[first.length - 1].ticket;
      const left = drawn.map((entry) => entry.ticket).filter((ticket) => ticket > last);
      left.sort((a, b) => a - b);
      const moves: [number, MutableEntry][] = [];
      drawn.forEach((entry, i) => {
        const { ticket, uuid } = first[i];
        if (uuid === entry.uuid) return;
        moves.push([ticket, entry]);
        if (!taken.has(uuid)) moves.push([left.shift() as number, this.entries.get(uuid) as MutableEntry]);
      });
      for (const [ticket, entry] of moves) {
        entry.ticket = ticket;
        this.line.assign(ticket, entry.uuid);
      }
      mark = last;
    }
    order.push(...drawn.map((entry) => entry.uuid));
    const placed = drawn.length;
    const done = step.length < count;
    const { keys: _keys, keysPlaced: _keysPlaced, ...rest } = state;
    this.eventStates.set(id, { ...rest, ...(!done && { keys, keysPlaced: from + step.length }), placedUpTo: mark, order, ...(done && { drawn: true }) });
    return { placed, done };
  }

  async claimAnnouncement(id: string): Promise<boolean> {
    const state = this.eventStates.get(id) ?? {};
    if (state.announced) return false;
    this.eventStates.set(id, { ...state, announced: true });
    return true;
  }

  async countAfter(ticket: number): Promise<number> {
    return this.line.size - this.line.countUpTo(ticket);
  }

  async forgetEvent(id: string): Promise<void> {
    this.eventStates.delete(id);
  }

  async challengeDifficulty(): Promise<number | undefined> {
    return this.difficulty;
  }

  async setChallengeDifficulty(difficulty: number | null): Promise<number | undefined> {
    this.difficulty = difficulty ?? undefined;
    return this.difficulty;
  }

  async message(): Promise<StoredMessage | undefined> {
    return this.roomMessage;
  }

  async setMessage(message: MessageTexts | null, now: number): Promise<StoredMessage> {
    const version = Math.max((this.roomMessage?.version ?? 0) + 1, Math.floor(now));
    this.roomMessage = { ...message, version };
    return this.roomMessage;
  }

  async close(): Promise<void> {}

  private entryFor(sessionId: string): MutableEntry | undefined {
    const uuid = this.entryBySession.get(sessionId);
    return uuid === undefined ? undefined : this.entries.get(uuid);
  }

  private positionOf(entry: MutableEntry): number {
    return entry.state === 'waiting' ? (this.line.rank(entry.ticket) ?? 0) : 0;
  }

  /** A place enters the line at the back: the next ticket, and the silence order from `now`. */
  private enter(entry: MutableEntry, now: number): void {
    this.pending.delete(entry.uuid);
    delete entry.pendingUntil;
    entry.state = 'waiting';
    entry.ticket = this.nextTicket++;
    entry.lastSeen = now;
    this.line.push(entry.ticket, entry.uuid);
    this.silence.set(entry.uuid, entry);
    this.silentSince = Math.min(this.silentSince, now);
  }

  /** A pending place kept until `until`: to the end of the pending order (every later time is later). */
  private keepPending(entry: MutableEntry, until: number): void {
    entry.pendingUntil = until;
    this.pending.delete(entry.uuid);
    this.pending.set(entry.uuid, entry);
    this.pendingSince = Math.min(this.pendingSince, until);
  }

  private count(address: string, change: number): void {
    const places = (this.addresses.get(address) ?? 0) + change;
    if (places > 0) this.addresses.set(address, places);
    else this.addresses.delete(address);
  }

  /** The place no longer counts against its address (it leaves the line, or its bot check). */
  private uncount(entry: MutableEntry): void {
    if (entry.address === undefined) return;
    this.count(entry.address, -1);
    delete entry.address;
  }

  /** The visitor showed they are still there: a waiting place moves to the end of the silence order. */
  private seen(entry: MutableEntry, now: number): void {
    entry.lastSeen = now;
    if (entry.state !== 'waiting') return;
    this.silence.delete(entry.uuid);
    this.silence.set(entry.uuid, entry);
    this.silentSince = Math.min(this.silentSince, now);
  }

  /**
   * A token bucket shared by every release: it starts with one second's worth (at least one
   * token), refills at `perMinute` and holds at most one second's worth and one token more, so a
   * paused or idle line cannot save up a burst, and the fraction a second leaves over (1.5 a
   * second: 0.5) is carried, not lost to the cap.
   */
  private refill(now: number, perMinute: number): number {
    const capacity = bucketCapacity(perMinute);
    const { tokens, at } = this.bucket;
    const refilled = Number.isNaN(tokens) ? Math.max(1, perMinute / 60) : tokens + ((now - at) * perMinute) / 60_000;
    this.bucket = { tokens: Math.min(capacity, refilled), at: now };
    return this.bucket.tokens;
  }

  private expireAdmissions(now: number): void {
    if (now < this.ends.soonest) return;
    this.ends.takeUpTo(now, (sessionId, until) => {
      // An end changed or removed since it was set is not this session's any more.
      if (this.admitted.get(sessionId) === until) this.admitted.delete(sessionId);
    });
  }

  private admitUntil(sessionId: string, until: number): void {
    this.admitted.set(sessionId, until);
    this.ends.add(until, sessionId);
  }

  /** Released visitors are kept for their claim window (at most their admission), for queue_info and the replay. */
  private forgetExpired(now: number, claimMs: number): void {
    const order = this.releasedOrder;
    let head = this.releasedHead;
    for (; head < order.length; head++) {
      const uuid = order[head];
      const entry = this.entries.get(uuid);
      if (entry?.releasedAt !== undefined && entry.releasedAt + claimMs > now) break;
      if (entry?.state === 'released') this.forgetEntry(entry);
    }
    // The forgotten head is cut off once it is most of the array: amortised O(1) a release.
    if (head > 1024 && head * 2 > order.length) {
      this.releasedOrder = order.slice(head);
      head = 0;
    }
    this.releasedHead = head;
  }

  /** Forgets a place, taking it off the line when it waits. */
  private forget(uuid: string): void {
    const entry = this.entries.get(uuid);
    if (entry) this.forgetEntry(entry);
  }

  private forgetEntry(entry: MutableEntry): void {
    const { uuid } = entry;
    this.entries.delete(uuid);
    this.placeGuesses.delete(uuid);
    this.uncount(entry);
    if (entry.state === 'waiting') {
      this.line.remove(entry.ticket);
      this.silence.delete(uuid);
    }
    this.pending.delete(uuid);
    if (this.entryBySession.get(entry.sessionId) === uuid) this.entryBySession.delete(entry.sessionId);
  }
}

/**
 * A random uuid as one flat string. `randomUUID` joins it of 31 pieces, a rope of about 480 bytes;
 * a place keeps its uuid as long as it waits, so the store keeps a copy made from its bytes, one
 * flat string of 56 bytes. (Reading a character flattened the rope in place on Node 20, not on 22
 * or 24.)
 */
function flatUuid(): string {
  return Buffer.from(randomUUID(), 'latin1').toString('latin1');
}

/** The release bucket's size: a second's worth of the rate, and one token more (see `refill`). */
export function bucketCapacity(perMinute: number): number {
  return perMinute / 60 + 1;
}

/**
 * Whole tokens in the bucket. A tolerance absorbs the rounding of many small refills (ten
 * refills of 0.1 make 0.9999999999999999), which would otherwise delay each release by a tick.
 */
export function wholeTokens(tokens: number): number {
  return Math.floor(tokens + 1e-9);
}

/** A place a link may move: still `sessionId`'s, in line or released with its held request not yet replayed. */
function movable(entry: Entry, sessionId: string): boolean {
  return entry.sessionId === sessionId && (entry.state === 'waiting' || (entry.state === 'released' && !entry.replayed));
}
