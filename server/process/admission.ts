import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../domain/clock';
import type { RoomConfig } from './config';
import type { RedisClient } from '../redis/connection';
import type { QueueStore } from '../store/types';
import { AdaptiveAdmission, FixedAdmission, type Admission, type OperatedPolicy } from '../domain/admission/admission';
import { MemoryAdmissionStore } from '../store/admission-memory';
import { RedisAdmissionStore } from '../store/redis/admission-store';

/** Time between two decisions of an adaptive room. */
export const ADMISSION_STEP_MS = 2000;

export interface AdmissionParts {
  /** Where the room's keys are in Redis: its decision goes beside its line. */
  readonly prefix: string;
  /** The room's line: growth needs visitors waiting. */
  readonly store: Pick<QueueStore, 'stats'>;
  readonly clock: Clock;
  readonly log: FastifyBaseLogger;
  /** The configuration with the operator's and an event's limits (`policy.ts` before admission): in force, or the ceilings. */
  readonly operated: OperatedPolicy;
  /** With REDIS_URL: the client every adaptive room of this process shares its decision through. */
  readonly redis?: RedisClient;
}

/**
 * A room's admission as configured: fixed, or adaptive with its decision in Redis (beside the
 * room's line, under the same prefix) or in this process.
 */
export function createAdmission(room: RoomConfig, parts: AdmissionParts): Admission {
  if (room.admission.mode === 'fixed') return new FixedAdmission(parts.operated);
  const { clock, store, operated, prefix } = parts;
  return new AdaptiveAdmission({
    operated,
    settings: {
      targetMs: room.admission.originLatencyTargetMs,
      feedbackMs: room.admission.feedbackMs,
      stepMs: ADMISSION_STEP_MS,
      sessionMs: operated().sessionMs,
    },
    store: parts.redis ? new RedisAdmissionStore(parts.redis, prefix, ADMISSION_STEP_MS) : new MemoryAdmissionStore(),
    clock,
    log: parts.log,
    room: async () => {
      const stats = await store.stats(clock.now());
      return { waiting: stats.waiting, paused: stats.paused, active: stats.active };
    },
  });
}
