import type { ConfigEnv } from '../config/environment';
import type { RedisNode, RedisTarget } from '../redis/connection';
import { ConfigError } from './config-env';

/**
 * Redis Sentinel (REDIS_SENTINELS, REDIS_SENTINEL_NAME) or Redis Cluster (REDIS_CLUSTER_NODES),
 * with REDIS_USERNAME, REDIS_PASSWORD, REDIS_SENTINEL_PASSWORD and REDIS_TLS; at most one of them
 * and REDIS_URL (whose URL carries its own credentials and `rediss:`).
 */
export function redisEngineConfig(v: ConfigEnv): Exclude<RedisTarget, string> | undefined {
  const sentinels = v.REDIS_SENTINELS;
  const clusterNodes = v.REDIS_CLUSTER_NODES;
  const given = [v.REDIS_URL !== undefined && 'REDIS_URL', sentinels !== undefined && 'REDIS_SENTINELS', clusterNodes !== undefined && 'REDIS_CLUSTER_NODES'];
  const set = given.filter(Boolean);
  if (set.length > 1) throw new ConfigError(`Set one of REDIS_URL, REDIS_SENTINELS and REDIS_CLUSTER_NODES; got ${set.join(' and ')}.`);
  const auth = {
    username: v.REDIS_USERNAME,
    password: v.REDIS_PASSWORD,
    sentinelPassword: v.REDIS_SENTINEL_PASSWORD,
    tls: v.REDIS_TLS,
  };
  if (sentinels === undefined && clusterNodes === undefined) {
    const stray = (['REDIS_USERNAME', 'REDIS_PASSWORD', 'REDIS_SENTINEL_PASSWORD', 'REDIS_TLS', 'REDIS_SENTINEL_NAME'] as const).find(
      (name) => v[name] !== undefined && (name !== 'REDIS_TLS' || v.REDIS_TLS),
    );
    if (stray) throw new ConfigError(`${stray} goes with REDIS_SENTINELS or REDIS_CLUSTER_NODES; with REDIS_URL put credentials and rediss: in the URL.`);
    return undefined;
  }
  if (clusterNodes !== undefined) {
    if (auth.sentinelPassword !== undefined || v.REDIS_SENTINEL_NAME !== undefined) {
      throw new ConfigError('REDIS_SENTINEL_NAME and REDIS_SENTINEL_PASSWORD go with REDIS_SENTINELS, not REDIS_CLUSTER_NODES.');
    }
    return { kind: 'cluster', nodes: redisNodes('REDIS_CLUSTER_NODES', clusterNodes), ...auth };
  }
  const name = v.REDIS_SENTINEL_NAME;
  if (name === undefined)
    throw new ConfigError('REDIS_SENTINELS needs REDIS_SENTINEL_NAME: the name the Sentinels monitor the primary by (sentinel monitor <name> …).');
  return { kind: 'sentinel', sentinels: redisNodes('REDIS_SENTINELS', sentinels as string), name, ...auth };
}

/** `host:port,host:port,…` (an IPv6 host in brackets). */
function redisNodes(name: string, raw: string): RedisNode[] {
  const nodes = raw
    .split(',')
    .map((one) => one.trim())
    .filter(Boolean)
    .map((one) => {
      const found = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):(\d{1,5})$/.exec(one);
      const port = Number(found?.[2]);
      if (!found || port < 1 || port > 65535) throw new ConfigError(`${name} must list host:port pairs, comma-separated; got "${one}".`);
      return { host: found[1].replace(/^\[|\]$/g, ''), port };
    });
  if (nodes.length === 0) throw new ConfigError(`${name} must list host:port pairs, comma-separated; got "${raw}".`);
  return nodes;
}
