/**
 * The waiting line of the memory store, in ticket order, with each place's rank among the places
 * still in it: a visitor's position must count only those ahead who still wait, although places
 * also go from the middle (visitors who walked away, a session replaced at sign-in).
 *
 * Slots hold the places in ticket order, a gone place leaving an empty slot; a Fenwick (binary
 * indexed) tree over the slots counts the places still in line, so adding at the end, removing
 * anywhere, taking the head and ranking a ticket each cost O(log n). Empty slots are dropped
 * once they outnumber the places left, in one O(n) rebuild: amortised O(1) per removal.
 *
 * A place may also be put at a ticket before the last (`place`: a draw's entrant keyed to its
 * slot). Such places wait apart, in ticket order, and count in ranks from there (a binary search),
 * until they are enough to be merged into the slots in one O(n) rebuild: about √(256 n), so that
 * a million keyed into a line of a million cost a few µs each, rebuilds included.
 */
export class RankedLine {
  /** Slot → ticket, ascending. */
  private tickets: number[] = [];
  /** Slot → uuid while its place is in line, undefined once gone. */
  private uuids: (string | undefined)[] = [];
  /** The Fenwick tree over the slots, 1-based: `tree[i]` counts the live slots in (i − lowbit(i), i]. */
  private tree: number[] = [0];
  /** Slots before this one are all empty. */
  private head = 0;
  private live = 0;
  /** Places put before the last ticket and not merged yet, in ticket order. */
  private placedTickets: number[] = [];
  private placedUuids: string[] = [];

  /** Places in line. */
  get size(): number {
    return this.live + this.placedTickets.length;
  }

  /** Adds a place at the end. Its ticket must be larger than every ticket added before. */
  push(ticket: number, uuid: string): void {
    const last = this.tickets.at(-1);
    if (last !== undefined && ticket <= last) throw new Error(`Ticket ${ticket} does not come after ${last}.`);
    this.tickets.push(ticket);
    this.uuids.push(uuid);
    const i = this.tickets.length;
    // The new node covers (i − lowbit(i), i]: the live slots already there, and this one.
    this.tree[i] = 1 + this.prefix(i - 1) - this.prefix(i - lowbit(i));
    this.live++;
  }

  /** Puts a place at `ticket`, which no place in line holds, wherever it falls in the line. */
  place(ticket: number, uuid: string): void {
    const last = this.tickets.at(-1);
    if (this.placedTickets.length === 0 && (last === undefined || ticket > last)) return this.push(ticket, uuid);
    const at = upperBound(this.placedTickets, ticket);
    this.placedTickets.splice(at, 0, ticket);
    this.placedUuids.splice(at, 0, uuid);
    if (this.placedTickets.length > Math.max(1024, Math.sqrt(256 * this.live))) this.compact();
  }

  /** 1 for the head of the line; undefined when the ticket is not in line. */
  rank(ticket: number): number | undefined {
    const slot = this.slotOf(ticket);
    if (slot !== undefined) return this.prefix(slot + 1) + upperBound(this.placedTickets, ticket);
    const at = this.placedAt(ticket);
    return at === undefined ? undefined : this.prefix(this.slotAfter(ticket)) + at + 1;
  }

  /** Takes the place off the line; false when it is not in line. */
  remove(ticket: number): boolean {
    const slot = this.slotOf(ticket);
    if (slot === undefined) {
      const at = this.placedAt(ticket);
      if (at === undefined) return false;
      this.placedTickets.splice(at, 1);
      this.placedUuids.splice(at, 1);
      return true;
    }
    this.empty(slot);
    return true;
  }

  /** Takes the head of the line off it: its uuid, or undefined when nobody waits. */
  shift(): string | undefined {
    this.merge();
    this.skipEmpty();
    const uuid = this.uuids[this.head];
    if (uuid !== undefined) this.empty(this.head);
    return uuid;
  }

  /** Places in line whose ticket is `ticket` or below. */
  countUpTo(ticket: number): number {
    return this.prefix(this.slotAfter(ticket)) + upperBound(this.placedTickets, ticket);
  }

  /** The uuids in line with a ticket above `after` and at most `upTo`, in ticket order. */
  between(after: number, upTo: number): string[] {
    this.merge();
    const found: string[] = [];
    for (let slot = this.slotAfter(after); slot < this.tickets.length && this.tickets[slot] <= upTo; slot++) {
      const uuid = this.uuids[slot];
      if (uuid !== undefined) found.push(uuid);
    }
    return found;
  }

  /** Puts `uuid` in the place of `ticket`, which must be in line (the draw reorders places among their tickets). */
  assign(ticket: number, uuid: string): void {
    const at = this.placedAt(ticket);
    if (at !== undefined) {
      this.placedUuids[at] = uuid;
      return;
    }
    const slot = this.slotOf(ticket);
    if (slot === undefined) throw new Error(`Ticket ${ticket} is not in line.`);
    this.uuids[slot] = uuid;
  }

  /** The first place in line with a ticket above `ticket`, or undefined when there is none. */
  firstAfter(ticket: number): { readonly ticket: number; readonly uuid: string } | undefined {
    this.merge();
    for (let slot = Math.max(this.head, this.slotAfter(ticket)); slot < this.tickets.length; slot++) {
      const uuid = this.uuids[slot];
      if (uuid !== undefined) return { ticket: this.tickets[slot], uuid };
    }
    return undefined;
  }

  /** Takes the place of rank `rank` (1 for the head) off the line: its uuid, or undefined past the end. */
  removeAt(rank: number): string | undefined {
    this.merge();
    if (rank < 1 || rank > this.live) return undefined;
    // Descends the tree for the smallest slot count whose prefix reaches `rank`: O(log n).
    let slot = 0;
    let left = rank;
    for (let step = 2 ** Math.floor(Math.log2(this.tree.length - 1 || 1)); step > 0; step >>= 1) {
      const next = slot + step;
      if (next < this.tree.length && this.tree[next] < left) {
        slot = next;
        left -= this.tree[next];
      }
    }
    const uuid = this.uuids[slot];
    this.empty(slot);
    return uuid;
  }

  /** The uuids in line, head first. */
  *[Symbol.iterator](): IterableIterator<string> {
    this.merge();
    for (let slot = this.head; slot < this.uuids.length; slot++) {
      const uuid = this.uuids[slot];
      if (uuid !== undefined) yield uuid;
    }
  }

  private empty(slot: number): void {
    this.uuids[slot] = undefined;
    for (let i = slot + 1; i < this.tree.length; i += lowbit(i)) this.tree[i]--;
    this.live--;
    this.skipEmpty();
    if (this.tickets.length > 1024 && this.tickets.length > 2 * this.live) this.compact();
  }

  private skipEmpty(): void {
    while (this.head < this.uuids.length && this.uuids[this.head] === undefined) this.head++;
  }

  /** Live slots among the first `count`. */
  private prefix(count: number): number {
    let sum = 0;
    for (let i = count; i > 0; i -= lowbit(i)) sum += this.tree[i];
    return sum;
  }

  /** The slot of a ticket in line, by binary search; undefined when it is not in line. */
  private slotOf(ticket: number): number | undefined {
    let low = this.head;
    let high = this.tickets.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const found = this.tickets[middle];
      if (found === ticket) return this.uuids[middle] === undefined ? undefined : middle;
      if (found < ticket) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  }

  /** The first slot whose ticket is above `ticket` (the slots' count when none is). */
  private slotAfter(ticket: number): number {
    let low = 0;
    let high = this.tickets.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.tickets[middle] <= ticket) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The index of a placed ticket among those not merged yet, or undefined. */
  private placedAt(ticket: number): number | undefined {
    const at = upperBound(this.placedTickets, ticket) - 1;
    return at >= 0 && this.placedTickets[at] === ticket ? at : undefined;
  }

  /** Merges the places put before the last ticket (`place`) into the slots. */
  private merge(): void {
    if (this.placedTickets.length > 0) this.compact();
  }

  /** Keeps only the places in line, the placed ones merged in, and builds the tree again in O(n). */
  private compact(): void {
    const placed = this.placedTickets;
    const tickets: number[] = [];
    const uuids: string[] = [];
    let next = 0;
    const takePlacedUpTo = (ticket: number) => {
      for (; next < placed.length && placed[next] < ticket; next++) {
        tickets.push(placed[next]);
        uuids.push(this.placedUuids[next]);
      }
    };
    for (let slot = this.head; slot < this.uuids.length; slot++) {
      const uuid = this.uuids[slot];
      if (uuid === undefined) continue;
      takePlacedUpTo(this.tickets[slot]);
      tickets.push(this.tickets[slot]);
      uuids.push(uuid);
    }
    takePlacedUpTo(Infinity);
    this.live += placed.length;
    this.placedTickets = [];
    this.placedUuids = [];
    const tree = new Array<number>(tickets.length + 1).fill(1);
    tree[0] = 0;
    for (let i = 1; i < tree.length; i++) {
      const parent = i + lowbit(i);
      if (parent < tree.length) tree[parent] += tree[i];
    }
    this.tickets = tickets;
    this.uuids = uuids;
    this.tree = tree;
    this.head = 0;
  }
}

/** How many of `sorted` are `ticket` or below: where a larger one would go. */
function upperBound(sorted: readonly number[], ticket: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle] <= ticket) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The lowest set bit of `i`: how many slots the tree's node `i` covers. */
function lowbit(i: number): number {
  return i & -i;
}
