import { HttpError } from '../errors';
import type { Entry, HeldBody, QueueStore } from '../../store/types';

/** The bounds on what held bodies may take at once, in bytes as they came. */
export interface HeldBodyBounds {
  /** All the bodies this process has held and not given back (HELD_BODIES_MAX_BYTES). */
  readonly total: number;
  /** Those of one client address (HELD_BODIES_PER_ADDRESS_BYTES). */
  readonly perAddress: number;
}

/** Whose body it is: one held request per session and room; the address it is counted against. */
export interface BodyOwner {
  readonly room: string;
  readonly session: string;
  /** The client address's key (`addressKey`: IPv6 counted per /64). */
  readonly address: string;
}

interface Kept {
  readonly uuid: string;
  readonly address: string;
  readonly size: number;
  readonly store: QueueStore;
}

/** How soon a refused visitor may try again: places are dropped, and replayed, all the time. */
const RETRY_AFTER_SECONDS = 30;
/** Places looked up per sweep, so that one sweep never holds the store for long. */
const SWEEP_BATCH = 500;

/**
 * What this process's held bodies take, bounded in all and per client address: a body past
 * either bound is refused before its place is taken (429 past the address's, 503 past the
 * process's), so that a flood of large POSTs cannot grow the memory (or Redis) without bound.
 * A body counts from its hold until its place replays it or is gone (dropped as silent, its
 * admission over, moved by a sign-in): a replay gives it back at once, a sweep every second finds
 * the places gone, whichever store keeps them.
 */
export class HeldBodyBudget {
  private readonly kept = new Map<string, Kept>();
  private readonly byAddress = new Map<string, number>();
  private used = 0;
  private sweeping = false;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly bounds: HeldBodyBounds) {
    this.timer = setInterval(() => void this.sweep(), 1000);
    this.timer.unref();
  }

  /** Bytes counted now, in all and for `address`. */
  usage(address?: string): { readonly total: number; readonly address: number } {
    return { total: this.used, address: address === undefined ? 0 : (this.byAddress.get(address) ?? 0) };
  }

  /**
   * Holds `body` for `owner` with `hold` (the store's), counted from the start so that bodies held
   * at the same time cannot pass the bounds together. Throws the refusal, before `hold`, when the
   * body would pass a bound (the session's own body it replaces is not counted against it).
   * `heldOf` names the place `hold`'s result holds, if any.
   */
  async hold<T>(owner: BodyOwner, body: HeldBody | undefined, store: QueueStore, hold: () => Promise<T>, heldOf: (result: T) => Entry | undefined): Promise<T> {
    if (body === undefined) return hold();
    const size = sizeOf(body);
    const key = keyOf(owner);
    const replaced = this.kept.get(key);
    const freed = replaced?.size ?? 0;
    const freedHere = replaced?.address === owner.address ? freed : 0;
    if ((this.byAddress.get(owner.address) ?? 0) - freedHere + size > this.bounds.perAddress) {
      throw refusal(429, 'held_bodies_per_address', `The requests held for this address already take ${this.bounds.perAddress} bytes`);
    }
    if (this.used - freed + size > this.bounds.total) {
      throw refusal(503, 'held_bodies_full', 'The waiting room holds as many request bodies as it can');
    }
    this.add(owner.address, size);
    let result: T;
    try {
      result = await hold();
    } finally {
      this.add(owner.address, -size);
    }
    const entry = heldOf(result);
    if (entry === undefined) return result;
    // What the place holds now: this body, or the one it kept (another site's request replaces none).
    const heldSize = entry.request.body === undefined ? 0 : sizeOf(entry.request.body);
    this.giveBack(owner.room, owner.session);
    if (heldSize > 0) {
      this.kept.set(key, { uuid: entry.uuid, address: owner.address, size: heldSize, store });
      this.add(owner.address, heldSize);
    }
    return result;
  }

  /** Gives back the bytes of the body a session's place held in `room` (replayed, or gone). */
  giveBack(room: string, session: string): void {
    const key = keyOf({ room, session });
    const kept = this.kept.get(key);
    if (kept === undefined) return;
    this.kept.delete(key);
    this.add(kept.address, -kept.size);
  }

  /** Stops the sweep. */
  close(): void {
    clearInterval(this.timer);
  }

  /**
   * Looks up the next batch of counted places and gives back the bytes of those whose body is no
   * longer held; the others go to the end of the round. A store that cannot answer keeps them.
   */
  async sweep(): Promise<void> {
    if (this.sweeping || this.kept.size === 0) return;
    this.sweeping = true;
    try {
      const batch = [...take(this.kept, SWEEP_BATCH)];
      const gone = await Promise.all(batch.map(([key, kept]) => isGone(kept, sessionOf(key)).catch(() => false)));
      batch.forEach(([key, kept], index) => {
        if (this.kept.get(key) !== kept) return;
        this.kept.delete(key);
        if (gone[index]) this.add(kept.address, -kept.size);
        else this.kept.set(key, kept);
      });
    } finally {
      this.sweeping = false;
    }
  }

  private add(address: string, bytes: number): void {
    this.used += bytes;
    const now = (this.byAddress.get(address) ?? 0) + bytes;
    if (now > 0) this.byAddress.set(address, now);
    else this.byAddress.delete(address);
  }
}

/** Whether the place no longer holds its body: gone, replayed, or another session's now. */
async function isGone(kept: Kept, session: string): Promise<boolean> {
  const entry = await kept.store.get(kept.uuid);
  return entry === undefined || entry.replayed || entry.sessionId !== session || entry.request.body === undefined;
}

/** The bytes a held body stands for, without decoding it. */
function sizeOf(body: HeldBody): number {
  if (body.encoding !== 'base64') return Buffer.byteLength(body.raw);
  const padding = body.raw.endsWith('==') ? 2 : body.raw.endsWith('=') ? 1 : 0;
  return (body.raw.length / 4) * 3 - padding;
}

function keyOf(owner: Pick<BodyOwner, 'room' | 'session'>): string {
  return `${owner.session}\u0000${owner.room}`;
}

function sessionOf(key: string): string {
  return key.slice(0, key.indexOf('\u0000'));
}

function* take<K, V>(map: Map<K, V>, count: number): Generator<[K, V]> {
  let taken = 0;
  for (const pair of map) {
    if (taken++ >= count) return;
    yield pair;
  }
}

function refusal(status: 429 | 503, code: string, what: string): HttpError {
  return new HttpError(status, code, `${what}: try again in a moment.`, { 'retry-after': String(RETRY_AFTER_SECONDS) });
}
