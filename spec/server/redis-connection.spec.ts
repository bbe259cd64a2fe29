import type Redis from 'ioredis';
import { closeRedis, connectRedis, readyWithin, RedisUnreachableError } from '../../server/redis/connection';
import { closedPort } from '../support/closed-port';
import { startRedisServer, type RedisServer } from '../support/redis-server';

let server: RedisServer;
const clients: Redis[] = [];

/** A client of the server module's own kind, closed after the test. */
function connect(url: string, options: Parameters<typeof connectRedis>[1] = {}): Redis {
  const client = connectRedis(url, options);
  clients.push(client);
  return client;
}

beforeAll(async () => {
  server = await startRedisServer();
});
afterEach(async () => {
  server.resume();
  await Promise.all(clients.splice(0).map((client) => closeRedis(client)));
});
afterAll(async () => {
  await server?.close();
});

describe('the Redis connection every part of the server uses', () => {
  it('should be ready once connected, and take commands', async () => {
    const client = connect(server.url);

    await readyWithin(client, 2000);

    expect(client.status).toBe('ready');
    expect(await client.ping()).toBe('PONG');
  });

  it('should share one wait between the callers that arrive while it connects', async () => {
    const client = connect(server.url);
    const before = client.listenerCount('ready');

    const waits = [readyWithin(client, 2000), readyWithin(client, 2000), readyWithin(client, 2000)];

    expect(client.listenerCount('ready')).toBe(before + 1);
    await Promise.all(waits);
    expect(client.listenerCount('ready')).toBe(before);
  });

  it('should give up on a connection that never becomes ready within the time given', async () => {
    server.pause();
    const client = connect(server.url);

    const began = Date.now();
    await expect(readyWithin(client, 300)).rejects.toThrow(new RedisUnreachableError('Redis did not accept a connection within 300 ms.'));
    expect(Date.now() - began).toBeLessThan(2000);
  });

  it('should fail at once, without waiting, while the client waits to connect again', async () => {
    const client = connect(`redis://127.0.0.1:${await closedPort()}`);
    await expect(readyWithin(client, 1000)).rejects.toBeInstanceOf(RedisUnreachableError);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(client.status).toBe('reconnecting');

    const began = Date.now();
    await expect(readyWithin(client, 1000)).rejects.toThrow('Redis is unreachable (connection reconnecting).');
    expect(Date.now() - began).toBeLessThan(50);
  });

  it('should fail a command within its timeout when Redis stops answering', async () => {
    const client = connect(server.url, { commandTimeoutMs: 200 });
    await readyWithin(client, 2000);
    server.pause();

    const began = Date.now();
    await expect(client.ping()).rejects.toThrow(/timed out/i);
    expect(Date.now() - began).toBeLessThan(1000);
  });
});
