import type { Started } from '../../server/process/start';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { admin, startServer, waitFor } from './support/server';
import { Visitor } from './support/visitor';

/** Two gateways on one Redis: the report is the line's, whichever gateway held, released or answers. */
describe('report across gateways on one Redis', () => {
  let redis: RedisServer;
  let one: Started;
  let two: Started;

  beforeAll(async () => {
    redis = await startRedisServer();
    const env = { REDIS_URL: redis.url, ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' };
    one = await startServer(env);
    two = await startServer(env);
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await redis?.close();
  });

  it('should count the places held and released on both', async () => {
    await new Visitor(one.url).get('/checkout');
    for (const server of [one, two, one, two]) await new Visitor(server.url).hold();
    expect((await admin(two, 'POST', 'release', { count: 3 })).status).toBe(200);

    const figures = async (server: Started) => (await admin(server, 'GET', 'report')).json();
    await waitFor(async () => (await figures(one)).admitted === 3, 'the releases in the report');
    for (const server of [one, two]) {
      expect(await figures(server)).toMatchObject({ arrivals: 4, admitted: 3, waiting: 1, abandoned: 0 });
    }
    const csv = await (await admin(one, 'GET', 'report?format=csv')).text();
    expect(csv.trim().split('\r\n')).toHaveLength(5);
  });
});
