import calculateSlot from 'cluster-key-slot';
import { LANES } from '../../domain/lanes';

/**
 * One room's line split across shards: its places spread over parts, each a store of its own
 * under a prefix of its own (`partPrefix`), so that a Cluster puts the parts on different shards
 * (docs/capacity.md, "One room across shards"): their prefixes, and the time in their tickets
 * (a place's part is its session's lane's: `lanes.ts`).
 */

/** Most parts a room's line may be split into: one a lane, beyond which a part would hold none (`lanes.ts`). */
export const MAX_PARTS = LANES;
/**
 * Tickets a part may give in one millisecond before it gives later ones early (prelude.lua,
 * `nextTicket`): a ticket is the arrival's time since `TICKET_EPOCH_MS`, times this, times the
 * parts, so that 2^53 lasts about seventy years.
 */
export const TICKETS_PER_MS = 64;
/** The start of the parts' tickets' time: 2026-01-01 UTC. */
export const TICKET_EPOCH_MS = Date.UTC(2026, 0, 1);

/** When a part's ticket was taken (ms, its Redis's clock), as the part took it (`nextTicket` in lua/prelude.lua); later for a part that gave more than `TICKETS_PER_MS` in one millisecond. */
export function ticketTime(ticket: number, parts: number): number {
  return TICKET_EPOCH_MS + Math.floor((ticket - 1) / (TICKETS_PER_MS * parts));
}

/** Hash slots of a Redis Cluster. */
const SLOTS = 16384;

/**
 * The prefix of part `part` of `parts` of the room whose prefix is `prefix`: the part named at its
 * end (`~<part>/<parts>`), where the scripts read it (`nextTicket` in lua/prelude.lua). In a hash
 * tag (a Cluster: `wr:{shop}:` gives `wr:{shop~1/3.5}:`), a number follows that puts the part's
 * slot in its share of the slots, the `part`th of `parts` equal ranges: a Cluster gives each primary
 * a range of slots, so that evenly spread parts fall on different primaries rather than by chance.
 */
export function partPrefix(prefix: string, part: number, parts: number): string {
  if (!Number.isInteger(parts) || parts < 1 || parts > MAX_PARTS) throw new RangeError(`A line is split into 1 to ${MAX_PARTS} parts, not ${parts}.`);
  if (!Number.isInteger(part) || part < 0 || part >= parts) throw new RangeError(`Part ${part} is not one of ${parts}.`);
  if (!prefix.endsWith(':')) throw new RangeError(`A room's prefix ends with ':', not ${JSON.stringify(prefix)}.`);
  const name = `~${part}/${parts}`;
  if (!prefix.endsWith('}:')) return `${prefix.slice(0, -1)}${name}:`;
  const tag = prefix.slice(prefix.lastIndexOf('{') + 1, -2);
  const [from, to] = [Math.ceil((part * SLOTS) / parts), Math.ceil(((part + 1) * SLOTS) / parts)];
  for (let salt = 0; ; salt++) {
    const slot = calculateSlot(`${tag}${name}.${salt}`);
    if (slot >= from && slot < to) return `${prefix.slice(0, -2)}${name}.${salt}}:`;
  }
}
