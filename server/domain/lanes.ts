import { randomUUID } from 'node:crypto';

/**
 * Lanes an id is hashed into. A room whose line is split across shards puts a place in the part
 * its session's lane names, a lane modulo the parts (`partOf`): two ids of one lane fall in one part
 * however many parts, so that a session id given in the old one's lane (`idInLane`) keeps the place
 * in its part.
 */
export const LANES = 64;

/** An id's lane: FNV-1a of its characters, modulo `LANES`. */
export function laneOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % LANES;
}

/** The part of `parts` that holds the place of session or uuid `id`. */
export function partOf(id: string, parts: number): number {
  return laneOf(id) % parts;
}

/** A random uuid that `accept` takes: drawn until one is. */
function drawUuid(accept: (uuid: string) => boolean): string {
  for (;;) {
    const uuid = randomUUID();
    if (accept(uuid)) return uuid;
  }
}

/** A random uuid whose lane is `lane` (`LANES` draws on average, a few µs). */
export function idInLane(lane: number): string {
  return drawUuid((uuid) => laneOf(uuid) === lane);
}

/** A random uuid of part `part` of `parts` (`parts` draws on average). */
export function uuidInPart(part: number, parts: number): string {
  return drawUuid((uuid) => partOf(uuid, parts) === part);
}
