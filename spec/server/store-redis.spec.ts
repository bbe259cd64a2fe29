import { RedisStore } from '../../server/store/redis';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { describeQueueStore } from './store-contract';

let server: RedisServer;
let rooms = 0;

beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await server?.close();
});

describeQueueStore('redis', async () => new RedisStore(server.url, { prefix: `contract${++rooms}:` }));
