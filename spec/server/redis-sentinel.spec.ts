import type Pusher from 'pusher-js';
import { eventually } from '../support/eventually';
import { startSentinelSet, type SentinelSet } from '../support/redis-topologies';
import { startInstance, type Instance } from '../support/scale-out';
import { stopAllServerProcesses } from '../support/server-process';
import { startTestOrigin, type TestOrigin } from './support/origin';
import { connectPusher, record, subscribe } from './support/realtime';
import { expectLineKeptAfterFailover } from './support/failover';
import { Visitor } from './support/visitor';

jest.setTimeout(90_000);

describe('two gateways on Redis Sentinel, through a failover', () => {
  let sentinel: SentinelSet;
  let origin: TestOrigin;
  const clients: Pusher[] = [];
  beforeAll(async () => {
    [sentinel, origin] = await Promise.all([startSentinelSet(), startTestOrigin()]);
  });
  afterAll(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await stopAllServerProcesses();
    await Promise.all([sentinel?.close(), origin?.close()]);
  });

  it('should keep the line, and the releases flowing to the other gateway, once the replica is promoted', async () => {
    const env = {
      REDIS_SENTINELS: sentinel.sentinels.map(({ host, port }) => `${host}:${port}`).join(','),
      REDIS_SENTINEL_NAME: sentinel.name,
      ACTIVE_LIMIT: '1',
      RELEASE_PER_MINUTE: '0',
      UPSTREAM: origin.url,
    };
    const [one, two]: Instance[] = await Promise.all([startInstance(env), startInstance(env)]);
    await new Visitor(one.url).get('/checkout');
    const ada = new Visitor(one.url);
    const adaPage = await ada.hold('/checkout?item=1');
    const bob = new Visitor(two.url);
    const bobPage = await bob.hold('/checkout?item=2');
    // Said once it listens.
    expect(one.process.output()).toContain('Queue in Redis (Sentinel)');
    const listening = await connectPusher(two);
    clients.push(listening);
    const received = record((await subscribe(listening, `App.Client.${adaPage.queue.uuid}`)).channel, 'RequestUnqueud');
    await sentinel.inSync();

    await sentinel.primary.kill();
    await eventually(
      'the Sentinels to promote the replica',
      () => sentinel.primaryPort(),
      (port) => port === sentinel.replica.port,
      30_000,
    );

    // The store and the fan-out follow: the places are kept, new ones taken, releases heard on the other gateway.
    await expectLineKeptAfterFailover({ one, two, ada, adaPage, bob, bobPage, received });
    expect((await ada.queueInfo(adaPage.queue.uuid)).json).toMatchObject({ position: 0 });
    expect((await bob.queueInfo(bobPage.queue.uuid)).json).toMatchObject({ position: 1 });
  });
});
