import { RankedLine } from './ranked-line';
import { isPriorityTicket } from './types';

/**
 * The line in two parts, each a `RankedLine`: the code holders (priority tickets, below zero) and,
 * behind them all, everyone else. A place joins the back of its part, so a code holder goes ahead
 * of every place without a code and behind the code holders before it, in O(log n) like any
 * arrival; ranks, the head and the draw's reads see one line, code holders first.
 */
export class PriorityLine {
  private readonly ahead = new RankedLine();
  private readonly rest = new RankedLine();

  /** Places in line. */
  get size(): number {
    return this.ahead.size + this.rest.size;
  }

  /** Adds a place at the back of its part. Its ticket must be larger than every ticket added to that part before. */
  push(ticket: number, uuid: string): void {
    this.part(ticket).push(ticket, uuid);
  }

  /** Puts a place at `ticket`, which no place in line holds, wherever it falls in its part. */
  place(ticket: number, uuid: string): void {
    this.part(ticket).place(ticket, uuid);
  }

  /** 1 for the head of the line; undefined when the ticket is not in line. */
  rank(ticket: number): number | undefined {
    if (isPriorityTicket(ticket)) return this.ahead.rank(ticket);
    const rank = this.rest.rank(ticket);
    return rank === undefined ? undefined : this.ahead.size + rank;
  }

  /** Takes the place off the line; false when it is not in line. */
  remove(ticket: number): boolean {
    return this.part(ticket).remove(ticket);
  }

  /** Takes the head of the line off it: its uuid, or undefined when nobody waits. */
  shift(): string | undefined {
    return this.ahead.size > 0 ? this.ahead.shift() : this.rest.shift();
  }

  /** Places in line whose ticket is `ticket` or below. */
  countUpTo(ticket: number): number {
    return isPriorityTicket(ticket) ? this.ahead.countUpTo(ticket) : this.ahead.size + this.rest.countUpTo(ticket);
  }

  /** The uuids in line with a ticket above `after` and at most `upTo`, in ticket order. */
  between(after: number, upTo: number): string[] {
    return [...(isPriorityTicket(after) ? this.ahead.between(after, upTo) : []), ...this.rest.between(after, upTo)];
  }

  /** Puts `uuid` in the place of `ticket`, which must be in line. */
  assign(ticket: number, uuid: string): void {
    this.part(ticket).assign(ticket, uuid);
  }

  /** The first place in line with a ticket above `ticket`, or undefined when there is none. */
  firstAfter(ticket: number): { readonly ticket: number; readonly uuid: string } | undefined {
    return (isPriorityTicket(ticket) ? this.ahead.firstAfter(ticket) : undefined) ?? this.rest.firstAfter(ticket);
  }

  /** Takes the place of rank `rank` (1 for the head) off the line: its uuid, or undefined past the end. */
  removeAt(rank: number): string | undefined {
    return rank <= this.ahead.size ? this.ahead.removeAt(rank) : this.rest.removeAt(rank - this.ahead.size);
  }

  /** The uuids in line, head first. */
  *[Symbol.iterator](): IterableIterator<string> {
    yield* this.ahead;
    yield* this.rest;
  }

  private part(ticket: number): RankedLine {
    return isPriorityTicket(ticket) ? this.ahead : this.rest;
  }
}
