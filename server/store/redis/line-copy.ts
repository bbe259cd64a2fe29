import { repliesOf, type RedisClient } from '../../redis/connection';
import { PriorityLine } from '../priority-line';
import type { Position } from '../types';
import type { CommandReply } from './commands';

/** Where the copy starts following the log: the line's version and served there, and the log's last entry id. */
export type LogHead = CommandReply<'waitingRoomLogHead'>;

export interface LineCopyOptions {
  /** Reads the log's head, the line's version there and where its pages of `pageSize` end, in one step (the `waitingRoomLogHead` script). */
  readonly head: (pageSize: number) => Promise<LogHead>;
  /** A connection of the copy's own: it reads the line's pages and blocks on the log. */
  readonly tail: RedisClient;
  /** The store's keys (with its prefix) the copy reads: the log, and to check itself when idle, the line and its version. */
  readonly keys: { readonly log: string; readonly meta: string; readonly waiting: string };
  /** Places read from the line in one call. Default `PAGE_SIZE`. */
  readonly pageSize?: number;
  /** Shortest time between two reads of the log, caught up. Default `READ_SPACING_MS`. */
  readonly readSpacingMs?: number;
}

/** Longest a read of the log blocks in Redis before it is sent again (the tail's timeout adds the store's). */
export const BLOCK_MS = 1000;
/** Tickets read in one call while loading (at most as many places): a few ms of Redis each, whatever the line's length. */
export const PAGE_SIZE = 2000;
/** Pages asked for before the one being read is applied. */
const PAGES_AHEAD = 4;
/** Entries taken from the log in one read. */
const READ_COUNT = 1000;
/**
 * Shortest time from one read of the log to the next once the copy has caught up. A read that
 * blocks returns at the first entry: every gateway's copy read the log again at every change, a
 * call each in Redis, the whole room's arrivals times the gateways. Spaced, a copy reads at most
 * ten times a second, each read taking what came meanwhile, and at once when this instance has
 * changed the line itself (`written`), so that it still reads its own writes.
 */
export const READ_SPACING_MS = 100;
/** Wait before trying again after the log could not be read (Redis away, a draw under way). */
const RETRY_MS = 200;
/**
 * Places the copy remembers having seen leave the line, the latest: a failover loses at most the
 * writes of the replication's lag, far fewer than the log keeps.
 */
const REMEMBERED_REMOVALS = 10_000;

type LogEntry = [id: string, fields: string[]];

/** A client's events that say a connection broke: a Redis's ('close'), or a Cluster node's ('-node'). */
export const BROKEN = ['close', '-node'] as const;

/** The load was overtaken (a gap in the log, a change it cannot apply, a new connection): read the line again. */
class Overtaken extends Error {}

/**
 * This instance's own copy of the shared line, so that queue_info's polls, by far the most
 * frequent call, are answered here as the memory store answers them (a rank in a `RankedLine`),
 * instead of costing a script call in Redis and its round trip each. Redis stays the truth: every
 * call that changes the line logs its changes in one entry of a stream (`publishChanges` in
 * lua/prelude.lua), which the copy reads on a connection of its own, blocking, and applies in order.
 *
 * The copy loads without holding Redis: it notes the log's head, then reads the line in pages by
 * ticket, each a short call, and between two pages drains the log into a buffer, so that the log
 * never runs ahead of it however long the whole load takes (only one page's time must stay within
 * the log's length). Once the last page is in, the buffered entries are applied in order, each
 * change once: a place entered that a later page already holds, or gone before its page was read,
 * is skipped (tickets only grow, and a uuid never waits twice). See docs/architecture.md.
 *
 * The copy answers only when it can answer right: loaded, on a live connection that has not broken
 * since it loaded (a failover may have lost the last writes the copy holds), and with every change
 * this instance has itself made applied (`written`), so that an instance reads its own writes. A
 * place it does not hold (released, pending its bot check, unknown, or entered through another
 * instance a moment ago) is left to Redis. Entries are numbered: one missed (the log trimmed past
 * a copy that fell behind, Redis emptied or restarted), a change it cannot apply (one it does not
 * know) or a broken connection, and the copy reads the line again, in pages.
 */
export class LineCopy {
  private line = new PriorityLine();
  private tickets = new Map<string, number>();
  private served = 0;
  /** The version of the line the copy holds: the last log entry applied. */
  private version = 0;
  /** The latest version this instance has seen in a reply: the copy answers once it holds it. */
  private known = 0;
  private lastId = '0-0';
  /** Until when (ms, this process's clock) the copy holds every change logged (`countBefore`). */
  private caughtUpAt = Number.NEGATIVE_INFINITY;
  private loaded = false;
  /** Whether the copy has held the whole line once: the line it holds may bound a position told. */
  private held = false;
  /** Since a broken connection, until the line is read again: the line held then bounds every position told. */
  private broken = false;
  /** The latest places seen leaving the line, oldest first (`REMEMBERED_REMOVALS`): true for a release. */
  private readonly removed = new Map<string, boolean>();
  /**
   * Places Redis holds that the copy saw leave: a release or a leave a failover lost. They wait
   * in Redis, and leave again, but count ahead of nobody here, so that no position grows.
   */
  private ghosts = new Set<string>();
  /** The ghosts the copy saw released: each is released again (`returnedReleases`), and shown released meanwhile. */
  private returned = new Set<string>();
  private closed = false;
  /** Grows at every broken connection: a load begun before it is not trusted. */
  private epoch = 0;
  private running?: Promise<void>;
  /** Ends the wait between two reads of the log (`spaced`). */
  private wake?: () => void;
  private readonly pageSize: number;
  private readonly readSpacingMs: number;
  private readonly unconfirm = () => {
    this.epoch++;
    if (this.held) this.broken = true;
    this.loaded = false;
  };

  constructor(private readonly options: LineCopyOptions) {
    this.pageSize = options.pageSize ?? PAGE_SIZE;
    this.readSpacingMs = options.readSpacingMs ?? READ_SPACING_MS;
    // A new connection may lead to another Redis (a replica promoted, without the last writes).
    for (const event of BROKEN) options.tail.on(event, this.unconfirm);
  }

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
    if (version <= this.known) return;
    this.known = version;
    if (version > this.version) this.wake?.();
  }

  /**
   * The store's own connection broke: Redis may be another one now, without the last writes the
   * copy holds. The copy stops answering until it has read the line again.
   */
  disconnected(): void {
    this.unconfirm();
  }

  /** The place's position from the copy, or undefined when the copy cannot tell it: ask Redis. */
  position(uuid: string): Position | undefined {
    if (!this.loaded || this.version < this.known || this.options.tail.status !== 'ready') return undefined;
    const ticket = this.tickets.get(uuid);
    if (ticket === undefined) return undefined;
    const position = this.line.rank(ticket);
    return position === undefined ? undefined : { position, ticket, served: this.served };
  }

  /**
   * How many places wait with a ticket before `ticket`, and the line's served, or undefined when
   * the copy cannot tell them: it must answer as `position` does, and hold every change logged up
   * to `loggedBy` (ms, this process's clock), a place with an earlier ticket having been logged by
   * then (`PartedLine.position`, which counts the other parts of a line split across shards).
   */
  countBefore(ticket: number, loggedBy: number): { readonly before: number; readonly served: number } | undefined {
    if (!this.loaded || this.version < this.known || this.options.tail.status !== 'ready' || this.caughtUpAt < loggedBy) return undefined;
    return { before: this.line.countUpTo(ticket - 1), served: this.served };
  }

  /**
   * The most Redis's answer for the place may be shown as. Since a broken connection, until the
   * line is read again: its position in the line held when it broke, or 0 for a place the copy saw
   * released, since a failover may bring back a release or a leave that the copy applied and
   * positions were told from (behind it, everyone would move back one place). At any time: 0 for
   * a place whose release a failover undid, until it is released again. Undefined otherwise.
   */
  bound(uuid: string): number | undefined {
    if (this.returned.has(uuid)) return 0;
    if (!this.broken) return undefined;
    if (this.removed.get(uuid)) return 0;
    const ticket = this.tickets.get(uuid);
    return ticket === undefined ? undefined : this.line.rank(ticket);
  }

  /**
   * The places a failover brought back waiting after the copy saw them released: the release loop
   * releases them again (`releaseAgain` in lua/prelude.lua), until the log says they left.
   */
  returnedReleases(): string[] {
    return [...this.returned];
  }

  /**
   * Whether the copy saw the place leave the line, lately: one Redis holds waiting again was brought
   * back by a failover (a uuid never waits twice), whether or not the copy has read the line since.
   */
  sawLeave(uuid: string): boolean {
    return this.removed.has(uuid) || this.ghosts.has(uuid);
  }

  /** Whether the copy answers now (loaded, and confirmed since its connection last broke). */
  get ready(): boolean {
    return this.loaded;
  }

  /** Stops following the log; the tail connection is the caller's to close. */
  close(): void {
    this.closed = true;
    this.loaded = false;
    this.wake?.();
    for (const event of BROKEN) this.options.tail.off(event, this.unconfirm);
  }

  private async follow(): Promise<void> {
    let readAt = Number.NEGATIVE_INFINITY;
    while (!this.closed) {
      try {
        if (!this.loaded) await this.load();
        await this.spaced(readAt + this.readSpacingMs - performance.now());
        if (this.closed) return;
        readAt = performance.now();
        const startedAt = Date.now();
        const reply = await this.options.tail.xread('COUNT', READ_COUNT, 'BLOCK', BLOCK_MS, 'STREAMS', this.options.keys.log, this.lastId);
        const entries = reply?.[0][1];
        if (entries) this.apply(entries);
        else await this.check();
        // A read that took all there was holds every change logged before it began; one that
        // waited its whole block for none, every change logged before the block ended.
        if (!entries) this.caughtUpAt = startedAt + BLOCK_MS;
        else if (entries.length < READ_COUNT) this.caughtUpAt = startedAt;
        // Behind by a whole read: read on at once.
        if (entries?.length === READ_COUNT) readAt = Number.NEGATIVE_INFINITY;
      } catch {
        this.loaded = false;
        if (!this.closed) await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }

  /** Waits `ms`, or less if this instance changes the line meanwhile (`written`) or the copy closes. */
  private spaced(ms: number): Promise<void> {
    if (ms <= 0 || this.version < this.known) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  /**
   * Reads the line in pages by ticket while draining the log into a buffer, then applies the
   * buffer: the copy then holds the line as of the log's last entry read. A gap in the log (a page
   * slower than the log is long), a change it cannot apply while loading (a code used), or a
   * broken connection meanwhile, and it begins again.
   */
  private async load(): Promise<void> {
    const epoch = this.epoch;
    const previous = this.version;
    const previousGhosts = this.ghosts;
    const previousReturned = this.returned;
    const previousTickets = this.tickets;
    const [version, served, lastId, first, last, ahead, ends] = await this.options.head(this.pageSize);
    const line = new PriorityLine();
    const tickets = new Map<string, number>();
    // The code holders, few, came whole with the head; the rest of the line is read in pages.
    for (let i = 0; i + 1 < ahead.length; i += 2) {
      line.push(Number(ahead[i + 1]), ahead[i]);
      tickets.set(ahead[i], Number(ahead[i + 1]));
    }
    const buffered: LogEntry[] = [];
    let readId = lastId;
    let expected = version + 1;
    // Pages by ticket range, cut where a page's places ended at the head (about a page's places
    // each as the line moves on), so that the next ones can be asked for before this one is read:
    // Redis serves them meanwhile.
    const bounds = [first - 1, ...ends.filter((end) => end >= first && end < last), last];
    const pages = first <= last ? bounds.length - 1 : 0;
    const asked: Promise<string[]>[] = [];
    let next = 0;
    const ask = () => {
      for (; asked.length < PAGES_AHEAD && next < pages; next++) {
        const page = this.options.tail.zrangebyscore(this.options.keys.waiting, `(${bounds[next]}`, bounds[next + 1], 'WITHSCORES');
        // A load given up (overtaken, the store closed) leaves pages asked for and never read.
        page.catch(() => undefined);
        asked.push(page);
      }
    };
    // The log and the line's version read together: a version past the log's last entry means
    // entries were trimmed before they were read (the log emptied leaves no gap to see).
    let caughtUpAt = Number.NEGATIVE_INFINITY;
    const drainLog = async () => {
      for (;;) {
        const startedAt = Date.now();
        const [entries, current] = await this.drain(readId);
        for (const entry of entries) {
          if (Number(fieldsOf(entry[1]).v) !== expected++) throw new Overtaken('the log was trimmed past the load');
          buffered.push(entry);
          readId = entry[0];
        }
        if (entries.length < READ_COUNT) {
          if (current !== expected - 1) throw new Overtaken('the log was trimmed past the load');
          caughtUpAt = startedAt;
          return;
        }
      }
    };
    let read = 0;
    ask();
    while (asked.length > 0) {
      const page = await asked.shift()!;
      ask();
      for (let i = 0; i + 1 < page.length; i += 2) {
        // Read in an earlier page too: it moved up a slot between the two reads (add-draw-keys.lua).
        const earlier = tickets.get(page[i]);
        if (earlier !== undefined) line.remove(earlier);
        line.push(Number(page[i + 1]), page[i]);
        tickets.set(page[i], Number(page[i + 1]));
      }
      // The log drained every few pages (a few ms of Redis apart), and after the last.
      if (++read % PAGES_AHEAD === 0 || asked.length === 0) await drainLog();
      if (this.epoch !== epoch) throw new Overtaken('the connection broke during the load');
    }
    this.line = line;
    this.tickets = tickets;
    this.served = served;
    this.version = version;
    this.lastId = lastId;
    this.ghosts = new Set();
    this.returned = new Set();
    if (!this.catchUp(buffered, last)) throw new Overtaken('a change logged during the load could not be applied');
    this.caughtUpAt = caughtUpAt;
    // Places held before and not now left while the copy was not following the log (or were lost
    // with a failover's last writes, which is harmless to note).
    for (const uuid of previousTickets.keys()) if (!this.tickets.has(uuid)) this.noteRemoved(uuid, false);
    this.setGhostsApart(previousGhosts, previousReturned);
    // A version behind the one held before: Redis was emptied or replaced, and what was known with it is gone.
    this.known = this.version < previous ? this.version : Math.max(this.known, this.version);
    this.loaded = true;
    this.held = true;
    this.broken = false;
  }

  /** Takes out of the ranks the places read that the copy saw leave, or held apart before: see `ghosts`. */
  private setGhostsApart(previous: ReadonlySet<string>, previousReturned: ReadonlySet<string>): void {
    for (const uuid of [...previous, ...this.removed.keys()]) {
      const ticket = this.tickets.get(uuid);
      if (ticket === undefined) continue;
      this.line.remove(ticket);
      this.tickets.delete(uuid);
      this.ghosts.add(uuid);
      if (this.removed.get(uuid) || previousReturned.has(uuid)) this.returned.add(uuid);
    }
  }

  /** Notes a place seen leaving the line (released or not), forgetting the oldest beyond `REMEMBERED_REMOVALS`. */
  private noteRemoved(uuid: string, released: boolean): void {
    this.removed.set(uuid, released || (this.removed.get(uuid) ?? false));
    if (this.removed.size > REMEMBERED_REMOVALS) this.removed.delete(this.removed.keys().next().value!);
  }

  /** Notes the places an entry says were released (field r, `releases` in lua/prelude.lua). */
  private noteReleased(released: string | undefined): void {
    if (released) for (const uuid of released.split(',')) this.noteRemoved(uuid, true);
  }

  /** The log's entries after `id` (up to READ_COUNT), and the line's version, in one step. */
  private async drain(id: string): Promise<[entries: LogEntry[], version: number]> {
    const { tail, keys } = this.options;
    const [read, version] = repliesOf(await tail.multi().xread('COUNT', READ_COUNT, 'STREAMS', keys.log, id).hget(keys.meta, 'v').exec());
    return [(read as [string, LogEntry[]][] | null)?.[0][1] ?? [], Number(version ?? 0)];
  }

  /**
   * Applies the entries logged while the pages were read; false at a change it cannot apply. The
   * pages held the places with a ticket up to `paged`, the last given at the log's head; every
   * arrival logged since has a larger one. A place that left is removed if the copy holds it (its
   * page was read before it left), and skipped if not (read after): a uuid never waits twice.
   */
  private catchUp(entries: readonly LogEntry[], paged: number): boolean {
    for (const [id, fields] of entries) {
      const entry = fieldsOf(fields);
      if (!this.applyChanges(entry.c ?? '', paged)) return false;
      this.noteReleased(entry.r);
      this.version = Number(entry.v);
      this.served = Number(entry.s);
      this.lastId = id;
    }
    return true;
  }

  /**
   * After a second without change, the copy checks itself against Redis, in one step: the same
   * version and as many places, less the arrivals not logged yet (publishChanges in
   * lua/prelude.lua). A Redis emptied or replaced under it, or a change that failed half-way
   * without its entry, and it reads the line again. Entries logged since the empty read are read
   * in the same step and applied first: a change a moment old is not a copy gone wrong.
   */
  private async check(): Promise<void> {
    const { tail, keys } = this.options;
    const [read, meta, size] = repliesOf(
      await tail.multi().xread('COUNT', READ_COUNT, 'STREAMS', keys.log, this.lastId).hmget(keys.meta, 'v', 'wa').zcard(keys.waiting).exec(),
    );
    const entries = (read as [string, LogEntry[]][] | null)?.[0][1] ?? [];
    this.apply(entries);
    // Still behind by a whole read: the next read goes on, and the next quiet second checks.
    if (!this.loaded || entries.length === READ_COUNT) return;
    const [version, unlogged] = meta as (string | null)[];
    if (Number(version ?? 0) !== this.version || Number(size) - Number(unlogged ?? 0) !== this.line.size + this.ghosts.size) this.loaded = false;
  }

  /** Applies the log's entries in order; stops (and the copy is read again) at a gap or a change it cannot apply. */
  private apply(entries: readonly LogEntry[]): void {
    for (const [id, fields] of entries) {
      const entry = fieldsOf(fields);
      const version = Number(entry.v);
      // Entries after the last one read always follow it: any other version is a gap, or a Redis
      // emptied or replaced, whose versions start again from 1.
      if (version !== this.version + 1 || !this.applyChanges(entry.c ?? '', 0)) {
        this.loaded = false;
        return;
      }
      this.noteReleased(entry.r);
      this.version = version;
      this.served = Number(entry.s);
      this.lastId = id;
    }
  }

  /**
   * False when the changes cannot be applied to the copy as it is: it must be read again. Arrivals
   * with a ticket up to `paged` are already accounted for by the pages (see `catchUp`).
   */
  private applyChanges(changes: string, paged: number): boolean {
    for (const change of changes.split(',')) {
      if (change.startsWith('-')) {
        const uuid = change.slice(1);
        this.noteRemoved(uuid, false);
        this.returned.delete(uuid);
        if (this.ghosts.delete(uuid)) continue;
        const ticket = this.tickets.get(uuid);
        if (ticket === undefined) continue;
        this.tickets.delete(uuid);
        this.line.remove(ticket);
      } else if (change.startsWith('+')) {
        const colon = change.indexOf(':');
        const ticket = Number(change.slice(1, colon));
        const uuid = change.slice(colon + 1);
        // Read by the pages already: an arrival is logged a moment after it holds its place (publishChanges in lua/prelude.lua).
        if (ticket <= paged || this.tickets.get(uuid) === ticket) continue;
        try {
          this.line.push(ticket, uuid);
        } catch {
          return false;
        }
        this.tickets.set(uuid, ticket);
      } else if (change.startsWith('^')) {
        // A place moved ahead with a code (use-code.lua). While loading, whether the pages or the
        // head read it before or after the move is not known: the copy is read again (codes are few).
        if (paged > 0) return false;
        const colon = change.indexOf(':');
        const ticket = Number(change.slice(1, colon));
        const uuid = change.slice(colon + 1);
        this.ghosts.delete(uuid);
        this.returned.delete(uuid);
        const before = this.tickets.get(uuid);
        if (before !== undefined) this.line.remove(before);
        try {
          this.line.push(ticket, uuid);
        } catch {
          return false;
        }
        this.tickets.set(uuid, ticket);
      } else if (change.startsWith('~')) {
        // A place moved to another browser: its ticket under a new uuid (take-handoff.lua). One
        // the copy does not hold yet is read with its new uuid from the pages.
        const [from, to] = change.slice(1).split(':');
        if (this.ghosts.delete(from)) {
          this.ghosts.add(to);
          if (this.returned.delete(from)) this.returned.add(to);
          continue;
        }
        const ticket = this.tickets.get(from);
        if (ticket === undefined) continue;
        this.tickets.delete(from);
        this.line.assign(ticket, to);
        this.tickets.set(to, ticket);
      } else if (change.startsWith('>')) {
        // An entrant keyed to its draw slot (add-draw-keys.lua): a ticket nobody holds. While
        // loading, a place the pages have not read yet is read at its slot, or taken from here.
        const colon = change.indexOf(':');
        const ticket = Number(change.slice(1, colon));
        const uuid = change.slice(colon + 1);
        if (this.ghosts.has(uuid)) continue;
        const before = this.tickets.get(uuid);
        if (before === ticket) continue;
        if (before !== undefined) this.line.remove(before);
        this.line.place(ticket, uuid);
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
