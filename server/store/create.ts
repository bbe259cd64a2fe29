import type { ServerConfig } from '../config';
import { MemoryStore } from './memory';
import { RedisStore } from './redis';
import type { QueueStore } from './types';

/** The queue store the configuration asks for: Redis when REDIS_URL is set, else memory. */
export function createStore(config: Pick<ServerConfig, 'redisUrl'>): QueueStore {
  return config.redisUrl ? new RedisStore(config.redisUrl) : new MemoryStore();
}
