import { DEFAULT_PREFIX, type RedisTarget } from '../../redis/connection';
import type { Entry, HeldRequest, HoldOptions, ReleasePolicy } from '../types';
import { ARRIVALS_LOGGED_MS } from './commands';
import { partOf, partPrefix, ticketTime } from './parts';
import { RedisStore, type RedisStoreOptions } from './redis-store';

/**
 * How far apart the clocks of the shards and of the gateways may be, at most, for the order of
 * tickets over the parts and the positions told from it (`position`). Hosts kept by NTP on one
 * network are within a few ms.
 */
export const CLOCKS_APART_MS = 100;

/** A place's position in the whole line, and its ticket. */
export interface PartedPosition {
  /** 0 once released, and while pending; otherwise the rank among those waiting in every part, 1 for the head. */
  readonly position: number;
  readonly ticket: number;
}

/**
 * One room's line split across shards, as far as it is built: places held, ranked and released in
 * one order over every part (docs/capacity.md, "The line split across shards"). Each part is a
 * store of its own (`RedisStore` with `part`) under its own prefix (`partPrefix`), which on a Cluster
 * puts the parts on different primaries: a place's every step is one script in its part, and its
 * part follows from its session id, or its uuid, alone (`partOf`).
 *
 * Not a room's store yet: what it lacks is said in docs/capacity.md (admission while nobody waits,
 * the copies of the line, the release loop's pace, and what is the room's rather than a place's).
 */
export class PartedLine {
  readonly parts: readonly RedisStore[];

  constructor(redis: RedisTarget, count: number, options: Omit<RedisStoreOptions, 'part'> = {}) {
    const prefix = options.prefix ?? DEFAULT_PREFIX;
    this.parts = Array.from(
      { length: count },
      (_, index) => new RedisStore(redis, { ...options, prefix: partPrefix(prefix, index, count), part: { index, count } }),
    );
  }

  /** Holds a place for the session in its part, as `QueueStore.hold` does. */
  hold(sessionId: string, userId: number, request: HeldRequest, now: number, options?: HoldOptions): Promise<Entry> {
    return this.partOf(sessionId).hold(sessionId, userId, request, now, options);
  }

  get(uuid: string): Promise<Entry | undefined> {
    return this.partOf(uuid).get(uuid);
  }

  /**
   * The place's rank in the whole line, and marks it seen: its rank in its part, and the places
   * with an earlier ticket in every other part. Read part by part, not at one instant: a place
   * that leaves another part meanwhile may be counted or not, so a position read is never more
   * than the line held.
   *
   * Each other part is counted by this instance's copy of it (`LineCopy.countBefore`) once the
   * copy holds all that part logged until the place's ticket was taken, the wait before an
   * arrival is logged and `CLOCKS_APART_MS` later: a place with an earlier ticket, taken in
   * another part a moment before, cannot appear after the position was told and make it grow.
   * Until then, Redis counts it (a `ZCOUNT` a part).
   */
  async position(uuid: string, now: number): Promise<PartedPosition | undefined> {
    const own = this.partOf(uuid);
    const place = await own.position(uuid, now);
    if (!place || place.position === 0) return place && { position: place.position, ticket: place.ticket };
    const loggedBy = ticketTime(place.ticket, this.parts.length) + ARRIVALS_LOGGED_MS + CLOCKS_APART_MS;
    const others = await Promise.all(this.parts.filter((part) => part !== own).map((part) => part.countBefore(place.ticket, loggedBy)));
    return { position: others.reduce((sum, count) => sum + count, place.position), ticket: place.ticket };
  }

  /**
   * Releases the `count` earliest tickets over every part, each place once however many release
   * at once: each part's head is read, the `count`th lowest ticket among them is the cut, and each
   * part releases its places up to it. Two releases that read the same heads cut alike, and the
   * second finds those places gone. The released entries, in ticket order.
   */
  async release(count: number, now: number, policy: ReleasePolicy): Promise<Entry[]> {
    if (!(count > 0)) return [];
    const heads = await Promise.all(this.parts.map((part) => part.headTickets(count)));
    const lowest = heads.flat().sort((a, b) => a - b);
    if (lowest.length === 0) return [];
    const cut = lowest[Math.min(count, lowest.length) - 1];
    const due = heads.map((tickets) => tickets.filter((ticket) => ticket <= cut).length);
    const steps = await Promise.all(this.parts.flatMap((part, index) => (due[index] > 0 ? [part.release(due[index], now, policy, cut)] : [])));
    return steps.flatMap((step) => step.released).sort((a, b) => a.ticket - b.ticket);
  }

  /** Drops the places silent for longer than `abandonMs` in every part: how many. */
  async dropAbandoned(now: number, abandonMs: number): Promise<number> {
    const dropped = await Promise.all(this.parts.map((part) => part.dropAbandoned(now, abandonMs)));
    return dropped.reduce((sum, count) => sum + count, 0);
  }

  /** Places waiting in every part. */
  async waiting(now: number): Promise<number> {
    const stats = await Promise.all(this.parts.map((part) => part.stats(now)));
    return stats.reduce((sum, part) => sum + part.waiting, 0);
  }

  async close(): Promise<void> {
    await Promise.all(this.parts.map((part) => part.close()));
  }

  private partOf(id: string): RedisStore {
    return this.parts[partOf(id, this.parts.length)];
  }
}
