import { startRedisServer, type RedisServer } from '../support/redis-server';
import { startServerProcess, stopAllServerProcesses } from '../support/server-process';
import { startTestOrigin, type TestOrigin } from './support/origin';
import { Visitor } from './support/visitor';

jest.setTimeout(60_000);

/**
 * The Lua scripts live in `.lua` files beside the sources, which production does not ship: the
 * container runs dist/server.js alone. Built, the server must carry them inside (read from where
 * the sources would be, beside dist/, they would not be found, and every call to Redis would fail).
 */
describe("the built server's Redis scripts", () => {
  let redis: RedisServer;
  let origin: TestOrigin;

  beforeAll(async () => {
    [redis, origin] = await Promise.all([startRedisServer(), startTestOrigin()]);
  });
  afterAll(async () => {
    await stopAllServerProcesses();
    await Promise.all([redis?.close(), origin?.close()]);
  });

  it('should be inside dist/server.js: a visitor held in the Redis line, and told its place', async () => {
    const server = await startServerProcess({ REDIS_URL: redis.url, UPSTREAM: origin.url, ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' });
    const first = await new Visitor(server.url).get('/checkout');
    expect(first.page).toBeUndefined();

    const held = new Visitor(server.url);
    const page = await held.hold();
    expect((await held.queueRequest(page)).status).toBe(202);
    expect((await held.queueInfo(page.queue.uuid)).json).toMatchObject({ position: 1 });
  });
});
