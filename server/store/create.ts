import type { ServerConfig } from '../config';
import { MemoryStore } from './memory';
import { redisTargetOf, roomPrefix } from '../redis/target';
import { RedisStore } from './redis/redis-store';
import type { QueueStore } from './types';

/**
 * The queue store the configuration asks for: Redis when REDIS_URL, REDIS_SENTINELS or
 * REDIS_CLUSTER_NODES is set, else memory. Each room has its own, under its `roomPrefix`.
 */
export function createStore(config: Pick<ServerConfig, 'redisUrl' | 'redisEngine'>, room?: { name: string; primary: boolean }): QueueStore {
  const target = redisTargetOf(config);
  if (!target) return new MemoryStore();
  const cluster = typeof target === 'object' && target.kind === 'cluster';
  return new RedisStore(target, { prefix: roomPrefix(room ?? { name: 'default', primary: true }, cluster) });
}
