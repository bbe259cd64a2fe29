import type Redis from 'ioredis';
import type { Cluster, ClusterOptions, RedisOptions } from 'ioredis';

/**
 * The one way this server talks to Redis: the queue store (`store/redis/`) and the realtime
 * fanout (`realtime/redis-fanout.ts`) make their clients here, wait for them here, and close them
 * here, so that both fail alike and within the same bounds when Redis is away. The Redis is a
 * single one (`redis://…`), or the primary its Sentinels name, or a Redis Cluster (`RedisTarget`).
 */

/** Put before every key and the pub/sub channel, so that a room's keys and channel share one prefix. */
export const DEFAULT_PREFIX = 'wr:';
/** Longest wait for one Redis reply before the call fails, in ms. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 1000;
/** Longest wait for a connection under way (at start) before a call fails, in ms. */
export const DEFAULT_CONNECT_WAIT_MS = 1000;

/** One Redis or Sentinel process: `host:port`. */
export interface RedisNode {
  readonly host: string;
  readonly port: number;
}

/** The credentials and TLS of the Redis processes (and Sentinels) that are not given as a URL. */
export interface RedisAuth {
  readonly username?: string;
  readonly password?: string;
  /** The Sentinels' own password (`requirepass` in sentinel.conf), when they have one. */
  readonly sentinelPassword?: string;
  /** TLS to every Redis process and Sentinel. */
  readonly tls: boolean;
}

/** Where the line lives: a URL, the primary that Sentinels name, or the nodes of a Redis Cluster to start from. */
export type RedisTarget =
  | string
  | ({ readonly kind: 'sentinel'; readonly sentinels: readonly RedisNode[]; readonly name: string } & RedisAuth)
  | ({ readonly kind: 'cluster'; readonly nodes: readonly RedisNode[] } & RedisAuth);

/** A client of any of the `RedisTarget`s: the commands this server sends are the same on each. */
export type RedisClient = Redis | Cluster;

/** Redis cannot take a command now: unreachable, too slow to connect, or its client closed. */
export class RedisUnreachableError extends Error {
  override readonly name = 'RedisUnreachableError';
}

/** Reconnection attempts: for ever, at most a second apart, so that the client comes back by itself. */
const retry = (times: number): number => Math.min(50 * 2 ** times, 1000);

/**
 * Client options that make every call settle quickly when Redis is away, and never send a
 * call later than the caller was told it failed: a script may already have run, so running
 * it again could release more visitors than asked.
 */
export function redisClientOptions(commandTimeoutMs = DEFAULT_COMMAND_TIMEOUT_MS): RedisOptions {
  return {
    commandTimeout: commandTimeoutMs,
    // A call made while disconnected fails at once instead of waiting in a queue.
    enableOfflineQueue: false,
    // Calls in flight when the connection drops fail at once, and are not sent again.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    connectTimeout: Math.max(commandTimeoutMs, 1000),
    retryStrategy: retry,
    // Closing a connection that was already lost waits this long for nothing: keep it short.
    disconnectTimeout: 200,
  };
}

export interface ConnectOptions {
  readonly commandTimeoutMs?: number;
  /**
   * Send the calls of one turn of the event loop in one write (the store: one write and its system
   * call per call was the largest part of a busy server's time, see `npm run bench`).
   */
  readonly autoPipelining?: boolean;
  /** Commands (by the name they are called by) sent at once even so: those that are batches already. */
  readonly notPipelined?: readonly string[];
  /** A connection that will subscribe: ioredis's own resubscription is left to the caller. */
  readonly subscriber?: boolean;
}

/**
 * A client for `target` with `redisClientOptions`. Failures reach callers as rejected calls; the
 * client's own `error` events are silenced, or it would also print every failed reconnection
 * attempt while Redis is away.
 */
export function connectRedis(url: string, options?: ConnectOptions): Redis;
export function connectRedis(target: RedisTarget, options?: ConnectOptions): RedisClient;
export function connectRedis(target: RedisTarget, options: ConnectOptions = {}): RedisClient {
  // Loaded only when a Redis is used: a server on the memory store starts without it.
  const { default: RedisClass, Cluster: ClusterClass } = require('ioredis') as typeof import('ioredis');
  const own: RedisOptions = {
    ...redisClientOptions(options.commandTimeoutMs),
    ...(options.autoPipelining ? { enableAutoPipelining: true, autoPipeliningIgnoredCommands: [...(options.notPipelined ?? [])] } : {}),
    // ioredis's resubscription neither says when it is done nor covers a first SUBSCRIBE that
    // failed (Redis away at start): a subscriber subscribes again on every `ready` itself.
    ...(options.subscriber ? { autoResubscribe: false } : {}),
  };
  let client: RedisClient;
  if (typeof target === 'string') client = new RedisClass(target, own);
  else if (target.kind === 'sentinel') client = new RedisClass({ ...own, ...sentinelOptions(target) });
  else client = new ClusterClass([...target.nodes], clusterOptions(target, own, options));
  client.on('error', () => undefined);
  return client;
}

/** A client like `client` (same Redis, same options) but for `overrides`, e.g. a longer command timeout. */
export function duplicateRedis(client: RedisClient, overrides: RedisOptions): RedisClient {
  const copy: RedisClient = isCluster(client)
    ? client.duplicate([], { ...overrides, redisOptions: { ...client.options.redisOptions, ...overrides } })
    : client.duplicate(overrides);
  copy.on('error', () => undefined);
  return copy;
}

/** The longest wait for one reply `client` was given, in ms. */
/** The replies of a transaction or a pipeline (`exec()`), in order; the first error among them is thrown. */
export function repliesOf(replies: [error: Error | null, reply: unknown][] | null): unknown[] {
  return (replies ?? []).map(([error, reply]) => {
    if (error) throw error;
    return reply;
  });
}

export function commandTimeoutOf(client: RedisClient): number | undefined {
  return isCluster(client) ? client.options.redisOptions?.commandTimeout : client.options.commandTimeout;
}

/** Whether `client` talks to a Redis Cluster. */
export function isCluster(client: RedisClient): client is Cluster {
  return client.isCluster;
}

/**
 * Sentinel: ioredis asks the Sentinels for the current primary at every connection, checks that
 * it is one (a stale primary back from a freeze is left), and with `failoverDetector` hears the
 * Sentinels announce a failover, so that it moves to the new primary at once.
 */
function sentinelOptions(target: Extract<RedisTarget, { kind: 'sentinel' }>): RedisOptions {
  return {
    sentinels: target.sentinels.map(({ host, port }) => ({ host, port })),
    name: target.name,
    role: 'master',
    username: target.username,
    password: target.password,
    sentinelPassword: target.sentinelPassword,
    sentinelRetryStrategy: retry,
    failoverDetector: true,
    ...(target.tls ? { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true } : {}),
  };
}

/**
 * Cluster: every call goes to the primary of its key's slot (a room's keys share one, see
 * `roomPrefix`); a failover is followed by refreshing the slots when a node is lost or answers
 * MOVED. Sharded pub/sub (`SSUBSCRIBE`) needs the subscriber connections ioredis keeps per shard.
 */
function clusterOptions(target: Extract<RedisTarget, { kind: 'cluster' }>, own: RedisOptions, options: ConnectOptions): ClusterOptions {
  const { enableOfflineQueue, enableAutoPipelining, autoPipeliningIgnoredCommands, ...perNode } = own;
  return {
    redisOptions: { ...perNode, username: target.username, password: target.password, ...(target.tls ? { tls: {} } : {}) },
    enableOfflineQueue,
    enableAutoPipelining,
    autoPipeliningIgnoredCommands,
    clusterRetryStrategy: retry,
    // Reads go to primaries too: a replica may not have the last writes yet.
    scaleReads: 'master',
    // A slot moved by a failover is retried once the map is new; CLUSTERDOWN (no primary yet) too.
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    retryDelayOnTryAgain: 200,
    slotsRefreshTimeout: Math.max(own.commandTimeout ?? DEFAULT_COMMAND_TIMEOUT_MS, 1000),
    slotsRefreshInterval: 1000,
    ...(options.subscriber ? { shardedSubscribers: true } : {}),
    // TLS checks the name a node is reached by; the nodes' own addresses are what the slots name.
    ...(target.tls ? { dnsLookup: (address: string, callback: (error: null, address: string) => void) => callback(null, address) } : {}),
  };
}

/** The wait under way for each client still connecting: concurrent callers share it. */
const connecting = new WeakMap<RedisClient, Promise<void>>();

/**
 * Resolves once `client` can take a command. A connection under way (at start) is waited for, at
 * most `waitMs`; a client that lost Redis and waits to retry fails at once, so that the caller
 * is told in time while the client reconnects in the background. Rejects with
 * `RedisUnreachableError`.
 */
export function readyWithin(client: RedisClient, waitMs: number): Promise<void> {
  const { status } = client;
  if (status === 'ready') return Promise.resolve();
  if (status === 'wait') client.connect().catch(() => undefined);
  else if (status !== 'connecting' && status !== 'connect') {
    return Promise.reject(new RedisUnreachableError(`Redis is unreachable (connection ${status}).`));
  }
  let waiting = connecting.get(client);
  if (!waiting) {
    waiting = untilReady(client, waitMs).finally(() => connecting.delete(client));
    connecting.set(client, waiting);
  }
  return waiting;
}

function untilReady(client: RedisClient, waitMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const settle = (error?: Error) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onReady = () => settle();
    const onClose = () => settle(new RedisUnreachableError('Redis is unreachable (connection refused or lost).'));
    const timer = setTimeout(() => settle(new RedisUnreachableError(`Redis did not accept a connection within ${waitMs} ms.`)), waitMs);
    client.on('ready', onReady);
    client.on('close', onClose);
  });
}

/** Closes `client` politely when Redis answers, else drops the connection at once. */
export async function closeRedis(client: RedisClient): Promise<void> {
  if (client.status === 'ready') {
    try {
      await client.quit();
      return;
    } catch {
      // Redis stopped answering: drop the connection instead.
    }
  }
  client.disconnect();
}
