import type Redis from 'ioredis';
import type { RedisOptions } from 'ioredis';

/**
 * The one way this server talks to Redis: the queue store (`store/redis/`) and the realtime
 * fanout (`realtime/redis-fanout.ts`) make their clients here, wait for them here, and close them
 * here, so that both fail alike and within the same bounds when Redis is away.
 */

/** Put before every key and the pub/sub channel, so that a room's keys and channel share one prefix. */
export const DEFAULT_PREFIX = 'wr:';
/** Longest wait for one Redis reply before the call fails, in ms. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 1000;
/** Longest wait for a connection under way (at start) before a call fails, in ms. */
export const DEFAULT_CONNECT_WAIT_MS = 1000;

/** Redis cannot take a command now: unreachable, too slow to connect, or its client closed. */
export class RedisUnreachableError extends Error {
  override readonly name = 'RedisUnreachableError';
}

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
    // Keep trying for ever, at most a second apart, so that the client comes back by itself.
    retryStrategy: (times) => Math.min(50 * 2 ** times, 1000),
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
 * A client for `url` (`redis://…`, `rediss://…`) with `redisClientOptions`. Failures reach callers
 * as rejected calls; the client's own `error` events are silenced, or it would also print every
 * failed reconnection attempt while Redis is away.
 */
export function connectRedis(url: string, options: ConnectOptions = {}): Redis {
  // Loaded only when a Redis is used: a server on the memory store starts without it.
  const { default: RedisClient } = require('ioredis') as typeof import('ioredis');
  const client = new RedisClient(url, {
    ...redisClientOptions(options.commandTimeoutMs),
    ...(options.autoPipelining ? { enableAutoPipelining: true, autoPipeliningIgnoredCommands: [...(options.notPipelined ?? [])] } : {}),
    // ioredis's resubscription neither says when it is done nor covers a first SUBSCRIBE that
    // failed (Redis away at start): a subscriber subscribes again on every `ready` itself.
    ...(options.subscriber ? { autoResubscribe: false } : {}),
  });
  client.on('error', () => undefined);
  return client;
}

/** The wait under way for each client still connecting: concurrent callers share it. */
const connecting = new WeakMap<Redis, Promise<void>>();

/**
 * Resolves once `client` can take a command. A connection under way (at start) is waited for, at
 * most `waitMs`; a client that lost Redis and waits to retry fails at once, so that the caller
 * is told in time while the client reconnects in the background. Rejects with
 * `RedisUnreachableError`.
 */
export function readyWithin(client: Redis, waitMs: number): Promise<void> {
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

function untilReady(client: Redis, waitMs: number): Promise<void> {
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
export async function closeRedis(client: Redis): Promise<void> {
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
