import type Pusher from 'pusher-js';
import { eventually } from '../support/eventually';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { adminRelease, restartInstance, sameBrowserOn, startInstance, type Instance } from '../support/scale-out';
import { stopAllServerProcesses } from '../support/server-process';
import { connectPusher, record, subscribe } from './support/realtime';
import { Visitor } from './support/visitor';

jest.setTimeout(40_000);

describe('scale-out: an instance restarted while visitors wait', () => {
  let redis: RedisServer;
  let first: Instance;
  let second: Instance;
  const clients: Pusher[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    // Both only release by the admin API, so the test decides when.
    const env = { REDIS_URL: redis.url, ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' };
    [first, second] = await Promise.all([startInstance(env), startInstance(env)]);
    await new Visitor(first.url).get('/checkout');
  });
  afterAll(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await stopAllServerProcesses();
    await redis?.close();
  });

  it('should keep every place and held request, hear releases again, and replay the held POST exactly once', async () => {
    const bob = new Visitor(first.url);
    const bobPage = await bob.hold('/checkout?item=1');
    const ada = new Visitor(first.url);
    const token = await ada.csrfToken();
    const page = await ada.hold('/checkout?item=42', { form: { quantity: '3', note: 'gift wrap', _token: token } });
    const client = await connectPusher(first);
    clients.push(client);
    const states: string[] = [];
    client.connection.bind('state_change', ({ current }: { current: string }) => states.push(current));
    const subscribedAt: number[] = [];
    const { channel } = await subscribe(client, `App.Client.${page.queue.uuid}`);
    const received = record(channel, 'RequestUnqueud');
    channel.bind('pusher:subscription_succeeded', () => subscribedAt.push(Date.now()));
    expect((await ada.queueInfo(page.queue.uuid)).json).toMatchObject({ position: 2 });

    // What a process manager does on a deploy: SIGTERM, then start it again.
    expect(await first.process.stop()).toBe(0);
    const stoppedAt = Date.now();
    const meanwhile = await sameBrowserOn(ada, second).queueInfo(page.queue.uuid);
    first = await restartInstance(first);

    expect(meanwhile.json).toMatchObject({ position: 2 });
    // The same browser, on the new process: same session, same uuid, same place.
    expect((await ada.queueInfo(page.queue.uuid)).json).toMatchObject({ position: 2 });
    expect((await ada.queueRequest(page)).json).toEqual({ uuid: page.queue.uuid, state: 'waiting' });
    // pusher-js was told to reconnect (4200), finds the new process at the same address and
    // subscribes again, as the page's client does. (It may first reconnect to the old process
    // while it closes; only a subscription after its exit is one on the new process.)
    await eventually('pusher-js subscribed on the new process', async () => subscribedAt, (at) => at.some((t) => t > stoppedAt));
    expect(states).toContain('connecting');

    expect(await adminRelease(second, 2)).toEqual([bobPage.queue.uuid, page.queue.uuid]);
    await eventually('the release event on the restarted instance', async () => received.length, (n) => n > 0);
    const replay = await ada.post(page.queue.uri, { form: { uuid: page.queue.uuid, _token: page.csrfToken } });
    const again = await sameBrowserOn(ada, second).post(page.queue.uri, {
      form: { uuid: page.queue.uuid, _token: page.csrfToken },
    });

    expect(received).toEqual([{ uuid: page.queue.uuid }]);
    expect(replay.status).toBe(200);
    expect(replay.text).toContain('replayed from the waiting room');
    expect(replay.text).toContain('<th>quantity</th><td>3</td>');
    expect(replay.text).toContain('<th>note</th><td>gift wrap</td>');
    expect(again.status).toBe(409);
    expect(again.json).toEqual({ error: { code: 'already_replayed', message: 'This held request was already replayed.' } });
  });
});
