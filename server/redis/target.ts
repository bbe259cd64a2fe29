import { DEFAULT_PREFIX, type RedisTarget } from './connection';

/** The Redis the configuration names (REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES), or undefined for the memory store. */
export function redisTargetOf(config: { readonly redisUrl?: string; readonly redisEngine?: Exclude<RedisTarget, string> }): RedisTarget | undefined {
  return config.redisUrl ?? config.redisEngine;
}

/**
 * The prefix of a room's keys. On one Redis (REDIS_URL, Sentinel) the first room keeps the keys a
 * single line has always had (`wr:`), and every other room's are under `wr:<name>:`, so that a line
 * survives an upgrade. On a Cluster every room's are under `wr:{<name>}:`: the hash tag puts all of
 * a room's keys, the per-visitor ones its scripts name too, in one slot, so each script stays one
 * atomic step on one shard, and different rooms may live on different shards.
 */
export function roomPrefix(room: { readonly name: string; readonly primary: boolean }, cluster: boolean): string {
  if (cluster) return `${DEFAULT_PREFIX}{${room.name}}:`;
  return room.primary ? DEFAULT_PREFIX : `${DEFAULT_PREFIX}${room.name}:`;
}
