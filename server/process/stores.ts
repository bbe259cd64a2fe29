import type { ServerConfig } from './config';
import { MemoryStore } from '../store/memory';
import { redisTargetOf } from '../redis/target';
import { RedisStore } from '../store/redis/redis-store';
import type { QueueStore } from '../store/types';

/**
 * The queue store the configuration asks for: Redis when REDIS_URL, REDIS_SENTINELS or
 * REDIS_CLUSTER_NODES is set, else memory. Each room has its own; in Redis under its own key
 * prefix (`room-factory.ts`), the default one when none is given. `awayMs`, the room's
 * AWAY_SECONDS, spaces the marks of seen a Redis store writes (`RedisStoreOptions.awayMs`).
 */
export function createStore(config: Pick<ServerConfig, 'redisUrl' | 'redisEngine' | 'redisReplayReplicas'>, prefix?: string, awayMs?: number): QueueStore {
  const target = redisTargetOf(config);
  if (!target) return new MemoryStore();
  return new RedisStore(target, { ...(prefix !== undefined && { prefix }), replayReplicas: config.redisReplayReplicas, awayMs });
}
