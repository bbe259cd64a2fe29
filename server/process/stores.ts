import type { ServerConfig } from './config';
import { MemoryStore } from '../store/memory';
import { redisTargetOf } from '../redis/target';
import { PartedLine } from '../store/redis/parted-line';
import { RedisStore } from '../store/redis/redis-store';
import type { QueueStore } from '../store/types';

/**
 * The queue store the configuration asks for: Redis when REDIS_URL, REDIS_SENTINELS or
 * REDIS_CLUSTER_NODES is set, else memory. Each room has its own; in Redis under its own key
 * prefix (`room-factory.ts`), the default one when none is given, and split across shards in the
 * room's `parts` when it has more than one (`PartedLine`). `awayMs`, the room's AWAY_SECONDS,
 * spaces the marks of seen a Redis store writes (`RedisStoreOptions.awayMs`).
 */
export function createStore(
  config: Pick<ServerConfig, 'redisUrl' | 'redisEngine' | 'redisReplayReplicas'>,
  prefix?: string,
  awayMs?: number,
  parts = 1,
): QueueStore {
  const target = redisTargetOf(config);
  if (!target) return new MemoryStore();
  const options = { ...(prefix !== undefined && { prefix }), replayReplicas: config.redisReplayReplicas, awayMs };
  return parts > 1 ? new PartedLine(target, parts, options) : new RedisStore(target, options);
}
