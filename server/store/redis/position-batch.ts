import type { Position } from '../types';
import { StoreUnavailableError } from '../errors';
import { CallBatch } from './call-batch';

/** Sends one batch: `uuid, now` pairs; resolves with `[served, then the position and ticket of each]` (position -1: unknown, -2: pending its bot check). */
export type SendPositions = (pairs: string[]) => Promise<readonly number[]>;

/** The position the script answers for a place that waits for its bot check. */
const PENDING = -2;

/** Most polls in one script call: a call stays short for Redis however busy the instance is. */
export const MAX_BATCH = 256;

/** The position of the poll at `index` in a batch's reply. */
function positionOf(reply: readonly number[], index: number): Position | undefined {
  const served = Number(reply[0]);
  const position = Number(reply[1 + 2 * index]);
  const ticket = Number(reply[2 + 2 * index]);
  // -2: the place waits for its bot check, with no position yet; -1: unknown.
  if (position === PENDING) return { position: 0, ticket, served, pending: true };
  return position < 0 ? undefined : { position, ticket, served };
}

/**
 * queue_info's polls sent to Redis together (`CallBatch`), as one script call instead of one
 * each: the script's own cost, `served` read once, and the round trip's are most of what a poll
 * cost on the Redis store.
 */
export class PositionBatch {
  private readonly batch: CallBatch<[uuid: string, now: number], Position | undefined>;

  constructor(send: SendPositions) {
    this.batch = new CallBatch(async (polls) => {
      const reply = await send(polls.flatMap(([uuid, now]) => [uuid, String(now)]));
      // Served, then a position and a ticket each: any other reply answers none of them.
      if (!Array.isArray(reply) || reply.length !== 1 + 2 * polls.length) {
        throw new StoreUnavailableError(`Redis answered ${JSON.stringify(reply)?.slice(0, 100)} for ${polls.length} polls.`);
      }
      return (index) => positionOf(reply, index);
    }, MAX_BATCH);
  }

  position(uuid: string, now: number): Promise<Position | undefined> {
    return this.batch.call([uuid, now]);
  }
}
