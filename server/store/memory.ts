import { randomUUID } from 'node:crypto';
import type {
  AdmissionLimits,
  Entry,
  HeldRequest,
  PlaceInLine,
  Position,
  QueueStore,
  RecentReleases,
  ReleasePolicy,
  Stats,
} from './types';

/** How many release times are kept for the wait estimate. */
export const RECENT_RELEASES = 50;

type MutableEntry = { -readonly [K in keyof Entry]: Entry[K] };

/**
 * The queue in this process's memory: one instance, nothing to install. Every method runs to
 * completion without awaiting, so each is atomic by construction.
 *
 * The line is a FIFO of uuids in ticket order. Visitors only ever leave it at its head
 * (released, or dropped there as abandoned), so `served` — how many tickets have left the
 * head — turns a ticket into a position in constant time: `ticket - served`.
 */
export class MemoryStore implements QueueStore {
  private readonly entries = new Map<string, MutableEntry>();
  private readonly entryBySession = new Map<string, string>();
  /** Session id → admitted until (ms). */
  private readonly admitted = new Map<string, number>();
  private line: string[] = [];
  private head = 0;
  private served = 0;
  private nextTicket = 1;
  /** Released uuids in release order, to forget them once their admission ends. */
  private releasedOrder: string[] = [];
  private releasedTotal = 0;
  private releaseTimes: number[] = [];
  private paused = false;
  private bucket = { tokens: Number.NaN, at: 0 };

  async admit(sessionId: string, now: number, limits: AdmissionLimits): Promise<boolean> {
    this.expireAdmissions(now);
    if ((this.admitted.get(sessionId) ?? 0) > now) return true;
    if (this.waitingCount() > 0 || this.admitted.size >= limits.activeLimit) return false;
    this.admitted.set(sessionId, now + limits.sessionMs);
    return true;
  }

  async hold(sessionId: string, userId: number, request: HeldRequest, now: number): Promise<Entry> {
    const current = this.entryFor(sessionId);
    if (current?.state === 'waiting') {
      Object.assign(current, { request, userId, lastSeen: now });
      return { ...current };
    }
    if (current) this.forget(current.uuid);
    const entry: MutableEntry = {
      uuid: randomUUID(),
      sessionId,
      userId,
      ticket: this.nextTicket++,
      request,
      state: 'waiting',
      heldAt: now,
      lastSeen: now,
      replayed: false,
    };
    this.entries.set(entry.uuid, entry);
    this.entryBySession.set(sessionId, entry.uuid);
    this.line.push(entry.uuid);
    return { ...entry };
  }

  async get(uuid: string): Promise<Entry | undefined> {
    const entry = this.entries.get(uuid);
    return entry && { ...entry };
  }

  async placeInLine(uuid: string, now: number): Promise<PlaceInLine | undefined> {
    const entry = this.entries.get(uuid);
    if (!entry) return undefined;
    entry.lastSeen = now;
    return {
      entry: { ...entry },
      position: entry.state === 'released' ? 0 : entry.ticket - this.served,
      recentReleases: [...this.releaseTimes],
    };
  }

  async position(uuid: string, now: number): Promise<Position | undefined> {
    const entry = this.entries.get(uuid);
    if (!entry) return undefined;
    entry.lastSeen = now;
    const position = entry.state === 'released' ? 0 : entry.ticket - this.served;
    return { position, ticket: entry.ticket, served: this.served };
  }

  async recentReleases(): Promise<RecentReleases> {
    return { served: this.served, times: [...this.releaseTimes] };
  }

  async touch(uuid: string, now: number): Promise<boolean> {
    const entry = this.entries.get(uuid);
    if (!entry) return false;
    entry.lastSeen = now;
    return true;
  }

  async release(count: number, now: number, policy: ReleasePolicy): Promise<Entry[]> {
    const released: Entry[] = [];
    while (released.length < count && this.head < this.line.length) {
      const entry = this.entries.get(this.line[this.head]);
      this.head++;
      this.served++;
      if (!entry) continue;
      if (now - entry.lastSeen > policy.abandonMs) {
        this.forget(entry.uuid);
        continue;
      }
      entry.state = 'released';
      entry.releasedAt = now;
      this.admitted.set(entry.sessionId, now + policy.sessionMs);
      this.releasedOrder.push(entry.uuid);
      this.releasedTotal++;
      this.releaseTimes.unshift(now);
      released.push({ ...entry });
    }
    this.releaseTimes.length = Math.min(this.releaseTimes.length, RECENT_RELEASES);
    this.compactLine();
    return released;
  }

  async releaseDue(now: number, policy: ReleasePolicy): Promise<Entry[]> {
    this.expireAdmissions(now);
    this.forgetExpired(now, policy.sessionMs);
    if (this.paused || policy.perMinute <= 0) return [];
    const tokens = this.refill(now, policy.perMinute);
    const room = policy.activeLimit - this.admitted.size;
    const count = Math.min(wholeTokens(tokens), room);
    if (count <= 0) return [];
    const released = await this.release(count, now, policy);
    this.bucket.tokens -= released.length;
    return released;
  }

  async takeHeld(uuid: string, sessionId: string): Promise<HeldRequest | undefined> {
    const entry = this.entries.get(uuid);
    if (!entry || entry.sessionId !== sessionId || entry.state !== 'released' || entry.replayed) {
      return undefined;
    }
    entry.replayed = true;
    return entry.request;
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
    if (until !== undefined) this.admitted.set(to, until);
  }

  async stats(now: number): Promise<Stats> {
    this.expireAdmissions(now);
    return {
      waiting: this.waitingCount(),
      active: this.admitted.size,
      released: this.releasedTotal,
      paused: this.paused,
    };
  }

  async setPaused(paused: boolean): Promise<void> {
    this.paused = paused;
  }

  async close(): Promise<void> {}

  private entryFor(sessionId: string): MutableEntry | undefined {
    const uuid = this.entryBySession.get(sessionId);
    return uuid === undefined ? undefined : this.entries.get(uuid);
  }

  private waitingCount(): number {
    return this.line.length - this.head;
  }

  /**
   * A token bucket shared by every release: it refills at `perMinute` and holds at most one
   * second's worth (at least one token), so a paused or idle line cannot save up a burst.
   */
  private refill(now: number, perMinute: number): number {
    const capacity = Math.max(1, perMinute / 60);
    const { tokens, at } = this.bucket;
    const refilled = Number.isNaN(tokens) ? capacity : tokens + ((now - at) * perMinute) / 60_000;
    this.bucket = { tokens: Math.min(capacity, refilled), at: now };
    return this.bucket.tokens;
  }

  private expireAdmissions(now: number): void {
    for (const [sessionId, until] of this.admitted) {
      if (until <= now) this.admitted.delete(sessionId);
    }
  }

  /** Released visitors are kept while their admission lasts, for queue_info and the replay. */
  private forgetExpired(now: number, sessionMs: number): void {
    let expired = 0;
    for (const uuid of this.releasedOrder) {
      const entry = this.entries.get(uuid);
      if (entry?.releasedAt !== undefined && entry.releasedAt + sessionMs > now) break;
      if (entry?.state === 'released') this.forget(uuid);
      expired++;
    }
    if (expired > 0) this.releasedOrder = this.releasedOrder.slice(expired);
  }

  private forget(uuid: string): void {
    const entry = this.entries.get(uuid);
    if (!entry) return;
    this.entries.delete(uuid);
    if (this.entryBySession.get(entry.sessionId) === uuid) this.entryBySession.delete(entry.sessionId);
  }

  /** Drops the served part of the line once it outweighs the rest, keeping pushes amortised O(1). */
  private compactLine(): void {
    if (this.head > 1024 && this.head * 2 > this.line.length) {
      this.line = this.line.slice(this.head);
      this.head = 0;
    }
  }
}

/**
 * Whole tokens in the bucket. A tolerance absorbs the rounding of many small refills (ten
 * refills of 0.1 make 0.9999999999999999), which would otherwise delay each release by a tick.
 */
export function wholeTokens(tokens: number): number {
  return Math.floor(tokens + 1e-9);
}
