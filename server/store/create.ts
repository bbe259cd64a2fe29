import type { ServerConfig } from '../config';
import { MemoryStore } from './memory';
import { DEFAULT_PREFIX } from '../redis/connection';
import { RedisStore } from './redis/redis-store';
import type { QueueStore } from './types';

/**
 * The queue store the configuration asks for: Redis when REDIS_URL is set, else memory. Each
 * room has its own; in Redis the first room keeps the keys a single line has always had (`wr:`),
 * and every other room's are under `wr:<name>:`.
 */
export function createStore(config: Pick<ServerConfig, 'redisUrl'>, room?: { name: string; primary: boolean }): QueueStore {
  if (!config.redisUrl) return new MemoryStore();
  return new RedisStore(config.redisUrl, room && !room.primary ? { prefix: `${DEFAULT_PREFIX}${room.name}:` } : {});
}
