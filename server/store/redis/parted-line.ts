import { DomainError } from '../../domain/errors';
import { DEFAULT_PREFIX, type RedisTarget } from '../../redis/connection';
import type { EventState } from '../event-store';
import type { HandoffOutcome } from '../handoff';
import { RECENT_RELEASES } from '../memory';
import { partOf } from '../../domain/lanes';
import {
  MOVE_INTERVAL_MS,
  type AdmissionLimits,
  type CodeGuessLimits,
  type CodeUse,
  type Entry,
  type PlaceInLine,
  type Position,
  type QueueStore,
  type RecentReleases,
  type Release,
  type ReleasePolicy,
  type RevocationsRead,
  type Stats,
} from '../types';
import { ARRIVALS_LOGGED_MS } from './commands';
import { partPrefix, ticketTime } from './parts';
import { RedisStore, type RedisStoreOptions } from './redis-store';

/**
 * How far apart the clocks of the shards and of the gateways may be, at most, for the order of
 * tickets over the parts and the positions told from it (`position`). Hosts kept by NTP on one
 * network are within a few ms.
 */
export const CLOCKS_APART_MS = 100;

/** What a room split in parts does not do yet: refused with 409. */
function notInParts(what: string): DomainError {
  return new DomainError('conflict', 'not_in_parts', `This room's line is split across shards (its parts): ${what} are not available in it yet.`);
}

/** The share of `limit` a part admits at once, so that the parts together admit `limit` at most. */
function share(limit: number, part: number, parts: number): number {
  return Math.floor(limit / parts) + (part < limit % parts ? 1 : 0);
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

/**
 * One room's line split across shards (docs/capacity.md, "One room across shards"): its
 * places spread over parts, each a store of its own (`RedisStore` with `part`) under its own prefix
 * (`partPrefix`), which on a Cluster puts the parts on different primaries. A place's every step is
 * one script in its part, which its session's lane or its uuid names (`partOf`); its tickets come
 * from its part's clock, so that the parts' tickets are one order. Positions count the places ahead
 * in every part, releases take the earliest tickets over the parts, and what is the room's rather
 * than a place's (the release loop's pace, its moves, the operator's limits, message and pause, the
 * report) is kept in the first part.
 *
 * Where it differs from one store: a session is let in at once, nobody waiting, within its part's
 * share of the active limit (the parts together within the limit), and a part may do so while
 * another's visitors wait; an address holds its cap of places in each part; events and handoffs
 * to another browser are refused (`not_in_parts`). A room's `parts` set this store (`createStore`).
 */
export class PartedLine implements QueueStore {
  readonly parts: readonly RedisStore[];
  private readonly first: RedisStore;

  constructor(redis: RedisTarget, count: number, options: Omit<RedisStoreOptions, 'part'> = {}) {
    const prefix = options.prefix ?? DEFAULT_PREFIX;
    this.parts = Array.from(
      { length: count },
      (_, index) => new RedisStore(redis, { ...options, prefix: partPrefix(prefix, index, count), part: { index, count } }),
    );
    this.first = this.parts[0];
  }

  // The room's own: in the first part.
  reportArrival: QueueStore['reportArrival'] = (...args) => this.first.reportArrival(...args);
  reportReleases: QueueStore['reportReleases'] = (...args) => this.first.reportReleases(...args);
  reportReplay: QueueStore['reportReplay'] = (...args) => this.first.reportReplay(...args);
  reportCount: QueueStore['reportCount'] = (...args) => this.first.reportCount(...args);
  reportSample: QueueStore['reportSample'] = (...args) => this.first.reportSample(...args);
  reportRead: QueueStore['reportRead'] = (...args) => this.first.reportRead(...args);
  setPaused: QueueStore['setPaused'] = (paused) => this.first.setPaused(paused);
  limits: QueueStore['limits'] = () => this.first.limits();
  setLimits: QueueStore['setLimits'] = (change) => this.first.setLimits(change);
  challengeDifficulty: QueueStore['challengeDifficulty'] = () => this.first.challengeDifficulty();
  setChallengeDifficulty: QueueStore['setChallengeDifficulty'] = (difficulty) => this.first.setChallengeDifficulty(difficulty);
  message: QueueStore['message'] = () => this.first.message();
  setMessage: QueueStore['setMessage'] = (message, now) => this.first.setMessage(message, now);

  // A session's or a place's own: in its part.
  admittedUntil: QueueStore['admittedUntil'] = (sessionId, now) => this.ofId(sessionId).admittedUntil(sessionId, now);
  revoke: QueueStore['revoke'] = (sessionId, now, keepSlotMs) => this.ofId(sessionId).revoke(sessionId, now, keepSlotMs);
  hold: QueueStore['hold'] = (sessionId, userId, request, now, options) => this.ofId(sessionId).hold(sessionId, userId, request, now, options);
  enterLine: QueueStore['enterLine'] = (uuid, now) => this.ofId(uuid).enterLine(uuid, now);
  dropPending: QueueStore['dropPending'] = (uuid) => this.ofId(uuid).dropPending(uuid);
  get: QueueStore['get'] = (uuid) => this.ofId(uuid).get(uuid);
  touch: QueueStore['touch'] = (uuid, now) => this.ofId(uuid).touch(uuid, now);
  takeHeld: QueueStore['takeHeld'] = (uuid, sessionId) => this.ofId(uuid).takeHeld(uuid, sessionId);
  movedAway: QueueStore['movedAway'] = (uuid, now) => this.ofId(uuid).movedAway(uuid, now);

  admit(sessionId: string, now: number, limits: AdmissionLimits): Promise<boolean> {
    return this.ofId(sessionId).admit(sessionId, now, this.shareOf(sessionId, limits));
  }

  async arrive(...[sessionId, userId, request, now, limits, options]: Parameters<QueueStore['arrive']>): ReturnType<QueueStore['arrive']> {
    const arrival = await this.ofId(sessionId).arrive(sessionId, userId, request, now, limits && this.shareOf(sessionId, limits), options);
    if (arrival.admitted || arrival.place.position === 0) return arrival;
    const { entry, position } = arrival.place;
    const whole = await this.rank(entry.uuid, { position, ticket: entry.ticket, served: arrival.place.served });
    return { admitted: false, place: { entry, position: whole.position, served: whole.served } };
  }

  /**
   * Moves a session's place and admission to another id (sign-in). The server gives the new id in
   * the old one's lane (`idInLane`), so both are in one part; one in another part is refused rather
   * than leaving the place behind.
   */
  async moveSession(from: string, to: string, userId: number): Promise<void> {
    if (partOf(from, this.parts.length) !== partOf(to, this.parts.length))
      throw new Error('A session moves to an id of its own lane in a room split across shards.');
    await this.ofId(from).moveSession(from, to, userId);
  }

  async placeInLine(uuid: string, now: number): Promise<PlaceInLine | undefined> {
    const place = await this.ofId(uuid).placeInLine(uuid, now);
    if (!place || place.position === 0) return place;
    const [whole, recent] = await Promise.all([
      this.rank(uuid, { position: place.position, ticket: place.entry.ticket, served: place.served }),
      this.recentReleases(),
    ]);
    return { entry: place.entry, position: whole.position, served: whole.served, recentReleases: [...recent.times] };
  }

  /**
   * The place's rank in the whole line, and marks it seen: its rank in its part, and the places
   * with an earlier ticket in every other part; `served` is the parts' together. Read part by
   * part, not at one instant: a place that leaves another part meanwhile may be counted or not,
   * so a position read is never more than the line held.
   */
  async position(uuid: string, now: number): Promise<Position | undefined> {
    const place = await this.ofId(uuid).position(uuid, now);
    if (!place || place.position === 0 || place.pending) return place;
    return this.rank(uuid, place);
  }

  /**
   * A place's rank in its part made its rank in the whole line. Each other part is counted by this
   * instance's copy of it (`LineCopy.countBefore`) once the copy holds all that part logged until
   * the place's ticket was taken, the wait before an arrival is logged and `CLOCKS_APART_MS` later:
   * a place with an earlier ticket, taken in another part a moment before, cannot appear after the
   * position was told and make it grow. Until then, Redis counts it.
   */
  private async rank(uuid: string, place: Position): Promise<Position> {
    const own = this.ofId(uuid);
    // A code holder's ticket tells no time: the other parts are counted in Redis (code holders are few).
    const loggedBy = place.ticket < 0 ? Number.POSITIVE_INFINITY : ticketTime(place.ticket, this.parts.length) + ARRIVALS_LOGGED_MS + CLOCKS_APART_MS;
    const others = await Promise.all(this.parts.filter((part) => part !== own).map((part) => part.countBefore(place.ticket, loggedBy)));
    return {
      position: place.position + sum(others.map((other) => other.before)),
      ticket: place.ticket,
      served: place.served + sum(others.map((other) => other.served)),
    };
  }

  /** Every part's latest release times, newest first, as many as one store keeps, and their served together. */
  async recentReleases(): Promise<RecentReleases> {
    const parts = await Promise.all(this.parts.map((part) => part.recentReleases()));
    const times = parts.flatMap((part) => part.times).sort((a, b) => b - a);
    return { served: sum(parts.map((part) => part.served)), times: times.slice(0, RECENT_RELEASES) };
  }

  /**
   * Releases the `count` earliest tickets over every part, each place once however many release
   * at once: each part's head is read, the `count`th lowest ticket among them is the cut, and each
   * part releases its places up to it. Two releases that read the same heads cut alike, and the
   * second finds those places gone. The released entries in ticket order, and the parts' served.
   */
  async release(count: number, now: number, policy: ReleasePolicy): Promise<Release> {
    const released = await this.releaseEarliest(count, now, policy);
    const served = await this.served();
    return { released, moved: await this.first.tellMoved(served, now, 0), served };
  }

  /**
   * The release loop's step: each part ends its admissions and claims and releases again what a
   * failover brought back, then the first part's pace (`takeReleases`) gives how many the room
   * releases, within the active limit over every part, and they are cut over the parts as
   * `release` cuts them; the first part says whether the pages are told the line moved.
   */
  async releaseDue(now: number, policy: ReleasePolicy): Promise<Release> {
    const kept = await Promise.all(this.parts.map((part) => part.releaseDue(now, { ...policy, perMinute: 0 })));
    const active = sum(await Promise.all(this.parts.map(async (part) => (await part.stats(now)).active)));
    const taken = await this.first.takeReleases(now, policy.perMinute, policy.activeLimit - active);
    const released = await this.releaseEarliest(taken, now, policy);
    if (released.length < taken) await this.first.takeReleases(now, policy.perMinute, 0, taken - released.length);
    const served = await this.served();
    return { released: [...kept.flatMap((step) => step.released), ...released], moved: await this.first.tellMoved(served, now, MOVE_INTERVAL_MS), served };
  }

  async releaseAgain(uuid: string, now: number, policy: ReleasePolicy): Promise<Release | undefined> {
    const again = await this.ofId(uuid).releaseAgain(uuid, now, policy);
    return again && { ...again, served: await this.served() };
  }

  async dropAbandoned(now: number, abandonMs: number): Promise<number> {
    return sum(await Promise.all(this.parts.map((part) => part.dropAbandoned(now, abandonMs))));
  }

  async stats(now: number): Promise<Stats> {
    const parts = await Promise.all(this.parts.map((part) => part.stats(now)));
    const total = (field: 'waiting' | 'pending' | 'active' | 'released' | 'arrived') => sum(parts.map((part) => part[field]));
    return {
      waiting: total('waiting'),
      pending: total('pending'),
      active: total('active'),
      released: total('released'),
      paused: parts[0].paused,
      arrived: total('arrived'),
    };
  }

  /** Every part's revocations, its cursor the parts' cursors in order (`~` between them). */
  async revocations(since: string | undefined, now: number): Promise<RevocationsRead> {
    const cursors = since?.split('~') ?? [];
    const reads = await Promise.all(this.parts.map((part, index) => part.revocations(cursors.length === this.parts.length ? cursors[index] : undefined, now)));
    return { revoked: reads.flatMap((read) => read.revoked), cursor: reads.map((read) => read.cursor).join('~'), more: reads.some((read) => read.more) };
  }

  // The priority codes are the room's, kept in the first part; the code holders' tickets too.
  addCodes: QueueStore['addCodes'] = (hashes, now, expiresAt) => this.first.addCodes(hashes, now, expiresAt);
  codeCounts: QueueStore['codeCounts'] = () => this.first.codeCounts();

  /**
   * A priority code used in three steps, as use-code.lua's one: the session's part says whether its
   * place may take a code, the first part checks and uses the code with the room's next code
   * holder's ticket, and the session's part moves the place to it. A place that changed between
   * (released, or moved by another code) gives the code back. A step that fails leaves the code
   * used and the place where it was: a code never moves two places.
   */
  async useCode(sessionId: string, hash: string, now: number, limits: CodeGuessLimits): Promise<CodeUse> {
    const own = this.ofId(sessionId);
    const checked = await own.placeCode(sessionId, limits.perPlace, 'check');
    if (checked.outcome !== 'moved') return this.codeUse(checked, now);
    const taken = await this.first.takeCode(hash, now, limits);
    if (taken.outcome === 'wrong') {
      await own.placeCode(sessionId, limits.perPlace, 'wrong');
      return { outcome: 'wrong' };
    }
    if (taken.outcome !== 'taken') return { outcome: taken.outcome };
    const moved = await own.placeCode(sessionId, limits.perPlace, { ticket: taken.ticket });
    if (moved.outcome !== 'moved') await this.first.giveCodeBack(hash, taken.expiresAt, now);
    return this.codeUse(moved, now);
  }

  // Not composed over the parts yet: refused, or none.
  events: QueueStore['events'] = () => this.first.events();
  saveEvents: QueueStore['saveEvents'] = () => Promise.reject(notInParts('scheduled events'));
  eventState: QueueStore['eventState'] = (): Promise<EventState> => Promise.resolve({});
  startPrequeue: QueueStore['startPrequeue'] = () => Promise.reject(notInParts('scheduled events'));
  openEvent: QueueStore['openEvent'] = () => Promise.reject(notInParts('scheduled events'));
  entrantsOf: QueueStore['entrantsOf'] = () => Promise.reject(notInParts('scheduled events'));
  unkeyedEntrants: QueueStore['unkeyedEntrants'] = () => Promise.reject(notInParts('scheduled events'));
  addDrawKeys: QueueStore['addDrawKeys'] = () => Promise.reject(notInParts('scheduled events'));
  placeDrawn: QueueStore['placeDrawn'] = () => Promise.reject(notInParts('scheduled events'));
  claimAnnouncement: QueueStore['claimAnnouncement'] = () => Promise.resolve(false);
  countAfter: QueueStore['countAfter'] = () => Promise.reject(notInParts('scheduled events'));
  forgetEvent: QueueStore['forgetEvent'] = () => Promise.resolve();
  offerHandoff: QueueStore['offerHandoff'] = () => Promise.reject(notInParts('handoffs to another browser'));
  takeHandoff: QueueStore['takeHandoff'] = (): Promise<HandoffOutcome<Entry>> => Promise.reject(notInParts('handoffs to another browser'));

  async close(): Promise<void> {
    await Promise.all(this.parts.map((part) => part.close()));
  }

  /**
   * The earliest `count` tickets over the parts released (see `release`), in ticket order. A cut
   * that released fewer (silent visitors dropped at the head, places another instance released
   * first) is followed by another, as one store's release goes on past them, until the line is
   * empty.
   */
  private async releaseEarliest(count: number, now: number, policy: ReleasePolicy): Promise<Entry[]> {
    const released: Entry[] = [];
    while (released.length < count) {
      const left = count - released.length;
      const heads = await Promise.all(this.parts.map((part) => part.headTickets(left)));
      const lowest = heads.flat().sort((a, b) => a - b);
      if (lowest.length === 0) break;
      const cut = lowest[Math.min(left, lowest.length) - 1];
      const due = heads.map((tickets) => tickets.filter((ticket) => ticket <= cut).length);
      const steps = await Promise.all(this.parts.flatMap((part, index) => (due[index] > 0 ? [part.release(due[index], now, policy, cut)] : [])));
      released.push(...steps.flatMap((step) => step.released));
    }
    return released.sort((a, b) => a.ticket - b.ticket);
  }

  /** A code's outcome in the place's part, with its position in the whole line when it is ahead. */
  private async codeUse(step: { readonly outcome: CodeUse['outcome']; readonly uuid?: string }, now: number): Promise<CodeUse> {
    if (step.outcome !== 'moved' && step.outcome !== 'ahead') return { outcome: step.outcome };
    return { outcome: step.outcome, position: (await this.position(step.uuid!, now))?.position ?? 0 };
  }

  /** The parts' served together: places that have left the head of the line so far. */
  private async served(): Promise<number> {
    return (await this.recentReleases()).served;
  }

  private shareOf(sessionId: string, limits: AdmissionLimits): AdmissionLimits {
    return { ...limits, activeLimit: share(limits.activeLimit, partOf(sessionId, this.parts.length), this.parts.length) };
  }

  private ofId(id: string): RedisStore {
    return this.parts[partOf(id, this.parts.length)];
  }
}
