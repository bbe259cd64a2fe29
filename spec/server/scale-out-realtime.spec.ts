import type Pusher from 'pusher-js';
import type { PageConfigJson } from '@waiting-room/streams/contract';
import { eventually } from '../support/eventually';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { adminRelease, sameBrowserOn, setPaused, startInstance, type Instance } from '../support/scale-out';
import { startServerProcess, stopAllServerProcesses } from '../support/server-process';
import { startTestOrigin, userIdFor, type TestOrigin } from './support/origin';
import { authorizeThrough, connectPusher, record, subscribe } from './support/realtime';
import { Visitor } from './support/visitor';

jest.setTimeout(30_000);

const clientChannel = (page: PageConfigJson) => `App.Client.${page.queue.uuid}`;
const userChannel = (page: PageConfigJson) => `private-App.User.${page.user.id}.${page.queue.uuid}`;

/**
 * Two server processes on one Redis. Instances read their limits from their own environment:
 * the first admits one session, so that a visitor arriving there is held, and never releases
 * by itself; the second runs the release loop. So a release can only be decided on the second,
 * while every visitor below is held on, and listens through, the first. Both stand in front of
 * one test origin, which names the user a visitor signs in as.
 */
describe('scale-out: a release decided on one instance reaches a visitor connected to another', () => {
  let redis: RedisServer;
  let origin: TestOrigin;
  let first: Instance;
  let second: Instance;
  const clients: Pusher[] = [];

  beforeAll(async () => {
    [redis, origin] = await Promise.all([startRedisServer(), startTestOrigin()]);
    [first, second] = await Promise.all([
      startInstance({ REDIS_URL: redis.url, UPSTREAM: origin.url, ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' }),
      startInstance({ REDIS_URL: redis.url, UPSTREAM: origin.url, ACTIVE_LIMIT: '10', RELEASE_PER_MINUTE: '600' }),
    ]);
    // The first instance is full from now on.
    const filler = await new Visitor(first.url).get('/checkout');
    expect(filler.page).toBeUndefined();
  });
  afterAll(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await stopAllServerProcesses();
    await Promise.all([redis?.close(), origin?.close()]);
  });
  beforeEach(() => setPaused(first, true));

  /** A pusher-js client connected to `instance`'s embedded realtime server. */
  const connect = async (instance: Instance, options = {}) => {
    const client = await connectPusher(instance, options);
    clients.push(client);
    return client;
  };

  it("should deliver the second instance's release loop decision on an anonymous visitor's public channel on the first", async () => {
    const ada = new Visitor(first.url);
    const page = await ada.hold('/checkout?item=42');
    const { channel, error } = await subscribe(await connect(first), clientChannel(page));
    const received = record(channel, 'RequestUnqueud');
    // What the page does once subscribed: "I am listening".
    expect((await ada.queueRequest(page)).json).toEqual({ uuid: page.queue.uuid, state: 'waiting' });
    const onSecond = sameBrowserOn(ada, second);
    expect((await onSecond.queueInfo(page.queue.uuid)).json).toMatchObject({ position: 1 });

    await setPaused(second, false);
    await eventually(
      'the release event on the first instance',
      async () => received.length,
      (n) => n > 0,
    );
    const info = await onSecond.queueInfo(page.queue.uuid);
    const replay = await ada.get(page.queue.uri);

    expect(error).toBeUndefined();
    expect(received).toEqual([{ uuid: page.queue.uuid }]);
    expect(info.json).toMatchObject({ position: 0 });
    expect(replay.status).toBe(200);
    expect(replay.page).toBeUndefined();
    expect(replay.text).toContain('<th>item</th><td>42</td>');
  });

  it("should deliver it on a signed-in visitor's private channel authorized through the first, or through the second", async () => {
    const bob = new Visitor(first.url);
    await bob.signIn('Bob');
    const page = await bob.hold('/checkout?item=7');
    const onSecond = sameBrowserOn(bob, second);
    // Each instance signs with the shared PUSHER_SECRET, so either may authorize a socket on the first.
    const throughFirst = await subscribe(await connect(first, { channelAuthorization: authorizeThrough(first, bob, page.csrfToken) }), userChannel(page));
    const throughSecond = await subscribe(
      await connect(first, { channelAuthorization: authorizeThrough(second, onSecond, page.csrfToken) }),
      userChannel(page),
    );
    const received = [record(throughFirst.channel, 'RequestUnqueud'), record(throughSecond.channel, 'RequestUnqueud')];
    expect((await onSecond.queueRequest(page)).status).toBe(202);

    await setPaused(second, false);
    await eventually(
      'the release on both private subscriptions',
      async () => received.flat().length,
      (n) => n >= 2,
    );

    expect(page.user.id).toBe(userIdFor('Bob'));
    expect([throughFirst.error, throughSecond.error]).toEqual([undefined, undefined]);
    expect(received).toEqual([[{ uuid: page.queue.uuid }], [{ uuid: page.queue.uuid }]]);
  });

  it('should send the release again through the other instance when the page, seeing position 0, asks there', async () => {
    const cleo = new Visitor(first.url);
    const page = await cleo.hold('/checkout?item=9');
    const { channel } = await subscribe(await connect(first), clientChannel(page));
    const received = record(channel, 'RequestUnqueud');

    // Released without an event: as if it had been lost on the way.
    expect(await adminRelease(second, 1, true)).toEqual([page.queue.uuid]);
    const onSecond = sameBrowserOn(cleo, second);
    expect((await onSecond.queueInfo(page.queue.uuid)).json).toMatchObject({ position: 0 });
    expect(received).toEqual([]);
    const asked = await onSecond.queueRequest(page);
    await eventually(
      'the release event sent again',
      async () => received.length,
      (n) => n > 0,
    );

    expect(asked.json).toEqual({ uuid: page.queue.uuid, state: 'released' });
    expect(received).toEqual([{ uuid: page.queue.uuid }]);
  });

  it('should have logged no warning or error on either instance', () => {
    expect(first.process.output()).not.toMatch(/"level":(40|50|60)/);
    expect(second.process.output()).not.toMatch(/"level":(40|50|60)/);
  });
});

describe('scale-out: starting an instance', () => {
  let redis: RedisServer;

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await stopAllServerProcesses();
    await redis?.close();
  });

  it('should say that events are shared through Redis, and warn when the secrets instances must share are left random', async () => {
    const unshared = await startServerProcess({ REDIS_URL: redis.url });
    const shared = await startServerProcess({
      REDIS_URL: redis.url,
      SESSION_SECRET: 'x'.repeat(32),
      PUSHER_SECRET: 'shared',
    });
    await Promise.all([unshared.stop(), shared.stop()]);

    expect(unshared.output()).toContain('embedded realtime server on the same port, events shared through Redis pub/sub.');
    expect(unshared.output()).toContain(
      'REDIS_URL is set: give every instance the same SESSION_SECRET and PUSHER_SECRET, or the sessions and private channels one instance signs are refused by the others.',
    );
    expect(shared.output()).not.toContain('REDIS_URL is set');
  });
});
