import type { RedisClient } from '../../redis/connection';
import { RankedLine } from '../ranked-line';
import type { Position } from '../types';
import type { CommandReply } from './commands';

/** The line as the snapshot script reads it: its version, served, the log's last entry id, and uuid, ticket, … in ticket order. */
export type LineSnapshot = CommandReply<'waitingRoomLineSnapshot'>;

export interface LineCopyOptions {
  /** Reads the whole line in one step (the `waitingRoomLineSnapshot` script). */
  readonly snapshot: () => Promise<LineSnapshot>;
  /** A connection of the copy's own: it blocks on the log. */
  readonly tail: RedisClient;
  /** The store's keys (with its prefix) the copy reads: the log, and to check itself when idle, the line and its version. */
  readonly keys: { readonly log: string; readonly meta: string; readonly waiting: string };
}

/** Longest a read of the log blocks in Redis before it is sent again (the tail's timeout adds the store's). */
export const BLOCK_MS = 1000;
/** Entries taken from the log in one read. */
const READ_COUNT = 1000;
/** Wait before trying again after the log could not be read (Redis away, a draw under way). */
const RETRY_MS = 200;

/**
 * This instance's own copy of the shared line, so that queue_info's polls, by far the most
 * frequent call, are answered here as the memory store answers them (a rank in a `RankedLine`),
 * instead of costing a script call in Redis and its round trip each. Redis stays the truth: every
 * call that changes the line logs its changes in one entry of a stream (`publishChanges` in
 * lua/prelude.lua), which the copy reads on a connection of its own, blocking, and applies in order.
 *
 * The copy answers only when it can answer right: loaded, on a live connection, and with every
 * change this instance has itself made applied (`written`), so that an instance reads its own
 * writes. A place it does not hold (released, pending its bot check, unknown, or entered through
 * another instance a moment ago) is left to Redis. Entries are numbered: one missed (the log
 * trimmed past a copy that fell behind, Redis emptied or restarted), a reorder (an event's draw)
 * or a broken connection, and the copy reads the whole line again.
 */
export class LineCopy {
  private line = new RankedLine();
  private tickets = new Map<string, number>();
  private served = 0;
  /** The version of the line the copy holds: the last log entry applied. */
  private version = 0;
  /** The latest version this instance has seen in a reply: the copy answers once it holds it. */
  private known = 0;
  private lastId = '0-0';
  private loaded = false;
  private closed = false;
  private running?: Promise<void>;

  constructor(private readonly options: LineCopyOptions) {}

  /** Starts reading the line, once. */
  start(): void {
    this.running ??= this.follow();
  }

  /**
   * Tells the copy the line's version after a call of this instance (scripts answer it). A version
   * behind the copy's says nothing: the log, on its own connection, may bring other instances'
   * later changes before this reply arrives.
   */
  written(version: number): void {
    if (version > this.known) this.known = version;
  }

  /** The place's position from the copy, or undefined when the copy cannot tell it: ask Redis. */
  position(uuid: string): Position | undefined {
    if (!this.loaded || this.version < this.known || this.options.tail.status !== 'ready') return undefined;
    const ticket = this.tickets.get(uuid);
    if (ticket === undefined) return undefined;
    const position = this.line.rank(ticket);
    return position === undefined ? undefined : { position, ticket, served: this.served };
  }

  /** Stops following the log; the tail connection is the caller's to close. */
  close(): void {
    this.closed = true;
    this.loaded = false;
  }

  private async follow(): Promise<void> {
    while (!this.closed) {
      try {
        if (!this.loaded) await this.load();
        const reply = await this.options.tail.xread('COUNT', READ_COUNT, 'BLOCK', BLOCK_MS, 'STREAMS', this.options.keys.log, this.lastId);
        if (reply) this.apply(reply[0][1]);
        else await this.check();
      } catch {
        this.loaded = false;
        if (!this.closed) await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }

  private async load(): Promise<void> {
    const [version, served, lastId, places] = await this.options.snapshot();
    const line = new RankedLine();
    const tickets = new Map<string, number>();
    // Mid-draw, two places may share a ticket for a moment: `push` refuses, and the load is tried again.
    for (let i = 0; i + 1 < places.length; i += 2) {
      const uuid = places[i];
      const ticket = Number(places[i + 1]);
      line.push(ticket, uuid);
      tickets.set(uuid, ticket);
    }
    // A version behind the one held before: Redis was emptied or replaced, and what was known with it is gone.
    this.known = version < this.version ? version : Math.max(this.known, version);
    this.line = line;
    this.tickets = tickets;
    this.version = version;
    this.served = served;
    this.lastId = lastId;
    this.loaded = true;
  }

  /**
   * After a second without change, the copy checks itself against Redis: the same version and as
   * many places. A Redis emptied or replaced under it, or a change that failed half-way without
   * its entry, and it reads the line again.
   */
  private async check(): Promise<void> {
    const { tail, keys } = this.options;
    const [version, size] = await Promise.all([tail.hget(keys.meta, 'v'), tail.zcard(keys.waiting)]);
    if (Number(version ?? 0) !== this.version || size !== this.line.size) this.loaded = false;
  }

  /** Applies the log's entries in order; stops (and the copy is read again) at a gap or a reorder. */
  private apply(entries: readonly [string, string[]][]): void {
    for (const [id, fields] of entries) {
      const entry = fieldsOf(fields);
      const version = Number(entry.v);
      // Entries after the last one read always follow it: any other version is a gap, or a Redis
      // emptied or replaced, whose versions start again from 1.
      if (version !== this.version + 1 || !this.applyChanges(entry.c ?? '')) {
        this.loaded = false;
        return;
      }
      this.version = version;
      this.served = Number(entry.s);
      this.lastId = id;
    }
  }

  /** False when the changes cannot be applied to the copy as it is: it must be read again. */
  private applyChanges(changes: string): boolean {
    for (const change of changes.split(',')) {
      if (change.startsWith('-')) {
        const uuid = change.slice(1);
        const ticket = this.tickets.get(uuid);
        if (ticket === undefined) continue;
        this.tickets.delete(uuid);
        this.line.remove(ticket);
      } else if (change.startsWith('+')) {
        const colon = change.indexOf(':');
        const ticket = Number(change.slice(1, colon));
        const uuid = change.slice(colon + 1);
        try {
          this.line.push(ticket, uuid);
        } catch {
          return false;
        }
        this.tickets.set(uuid, ticket);
      } else if (change.startsWith('=')) {
        // A step of a draw: the place now holds a ticket already in line (place-drawn.lua).
        const colon = change.indexOf(':');
        const ticket = Number(change.slice(1, colon));
        const uuid = change.slice(colon + 1);
        if (this.line.rank(ticket) === undefined) return false;
        this.line.assign(ticket, uuid);
        this.tickets.set(uuid, ticket);
      } else {
        return false;
      }
    }
    return true;
  }
}

function fieldsOf(fields: readonly string[]): Record<string, string> {
  const entry: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) entry[fields[i]] = fields[i + 1];
  return entry;
}
