import type Redis from 'ioredis';

/**
 * Resolves once `client` can take a command. A connection under way (at start) is waited for,
 * at most `waitMs`; a client that lost Redis and waits to retry fails at once, so that the
 * caller is told in time while the client reconnects in the background.
 */
export function readyWithin(client: Redis, waitMs: number): Promise<void> {
  const { status } = client;
  if (status === 'ready') return Promise.resolve();
  if (status === 'wait') client.connect().catch(() => {});
  else if (status !== 'connecting' && status !== 'connect') {
    return Promise.reject(new Error(`Redis is unreachable (connection ${status}).`));
  }
  return new Promise<void>((resolve, reject) => {
    const settle = (error?: Error) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onReady = () => settle();
    const onClose = () => settle(new Error('Redis is unreachable (connection refused or lost).'));
    const timer = setTimeout(() => settle(new Error(`Redis did not accept a connection within ${waitMs} ms.`)), waitMs);
    client.on('ready', onReady);
    client.on('close', onClose);
  });
}

/** Closes `client` politely when Redis answers, else drops the connection at once. */
export async function closeClient(client: Redis): Promise<void> {
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
