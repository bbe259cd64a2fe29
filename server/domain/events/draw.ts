import { createHash, createHmac, randomBytes } from 'node:crypto';

/**
 * The draw of a scheduled event on the server, with node:crypto: the same algorithm as the
 * contract's `drawOrder` (Web Crypto, which the verify page and `waiting-room verify-draw` run),
 * written apart so that each checks the other (docs/drop-day.md states it).
 */

/** A new seed: 32 random bytes as 64 lowercase hex digits. */
export const newSeed = (): string => randomBytes(32).toString('hex');

/** SHA-256 of the seed's 32 bytes, as lowercase hex: published before anyone enters. */
export const commitmentOf = (seed: string): string => createHash('sha256').update(Buffer.from(seed, 'hex')).digest('hex');

/** A place's ticket: SHA-256 of its uuid as text, as lowercase hex. */
export const ticketOf = (uuid: string): string => createHash('sha256').update(uuid, 'utf8').digest('hex');

/**
 * A place's draw key: HMAC-SHA256(seed bytes, its ticket as hex text), as lowercase hex. The draw
 * is the entrants sorted by it (then by ticket), so the keys can be computed as the pre-queue
 * fills and the store sorts them (`EventStore.addDrawKeys`).
 */
export const drawKey = (seed: string, uuid: string): string => createHmac('sha256', Buffer.from(seed, 'hex')).update(ticketOf(uuid), 'latin1').digest('hex');

/** One entrant of a draw. */
export interface Drawn {
  readonly uuid: string;
  readonly ticket: string;
}

/**
 * The entrants (`uuids`) in draw order for `seed`: by HMAC-SHA256(seed bytes, ticket as hex text)
 * ascending, compared as hex (ties, never seen with SHA-256, by ticket). About 2 µs an entrant.
 */
export function drawOrder(seed: string, uuids: readonly string[]): Drawn[] {
  const key = Buffer.from(seed, 'hex');
  const keyed = uuids.map((uuid) => {
    const ticket = ticketOf(uuid);
    return { uuid, ticket, mac: createHmac('sha256', key).update(ticket, 'latin1').digest('hex') };
  });
  keyed.sort((a, b) => (a.mac < b.mac ? -1 : a.mac > b.mac ? 1 : a.ticket < b.ticket ? -1 : a.ticket > b.ticket ? 1 : 0));
  return keyed.map(({ uuid, ticket }) => ({ uuid, ticket }));
}
