import type Pusher from 'pusher-js';
import { eventually } from '../support/eventually';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { adminRelease, restartInstance, sameBrowserOn, startInstance, type Instance } from '../support/scale-out';
import { stopAllServerProcesses } from '../support/server-process';
import { startTestOrigin, type TestOrigin } from './support/origin';
import { connectPusher, record, subscribe } from './support/realtime';
import { Visitor } from './support/visitor';

jest.setTimeout(40_000);

describe('scale-out: an instance restarted while visitors wait', () => {
  let redis: RedisServer;
  /** The site behind both instances: it outlives their restarts, as a real one does. */
  let origin: TestOrigin;
  let first: Instance;
  let second: Instance;
  const clients: Pusher[] = [];

  beforeAll(async () => {
    [redis, origin] = await Promise.all([startRedisServer(), startTestOrigin()]);
    // Both only release by the admin API, so the test decides when.
    const env = { REDIS_URL: redis.url, ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', UPSTREAM: origin.url };
    [first, second] = await Promise.all([startInstance(env), startInstance(env)]);
    await new Visitor(first.url).get('/checkout');
  });
  afterAll(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await stopAllServerProcesses();
    await Promise.all([redis?.close(), origin?.close()]);
  });

  it('should keep every place and held request, hear releases again, and replay the held POST exactly once', async () => {
    const bob = new Visitor(first.url);
    const bobPage = await bob.hold('/checkout?item=1');
    const ada = new Visitor(first.url);
    const page = await ada.hold('/checkout?item=42', { form: { quantity: '3', note: 'gift wrap' } });
    const before = await connectPusher(first);
    clients.push(before);
    const closes: number[] = [];
    before.connection.bind('error', () => undefined);
    before.connection.bind('state_change', ({ previous }: { previous: string }) => {
      if (previous === 'connected') closes.push(Date.now());
    });
    await subscribe(before, `App.Client.${page.queue.uuid}`);
    expect((await ada.queueInfo(page.queue.uuid)).json).toMatchObject({ position: 2 });

    // What a process manager does on a deploy: SIGTERM, then start it again.
    expect(await first.process.stop()).toBe(0);
    const meanwhile = await sameBrowserOn(ada, second).queueInfo(page.queue.uuid);
    first = await restartInstance(first);

    // The realtime clients were told to go (4200, reconnect).
    expect(closes.length).toBeGreaterThan(0);
    expect(meanwhile.json).toMatchObject({ position: 2 });
    // The same browser, on the new process: same session, same uuid, same place.
    expect((await ada.queueInfo(page.queue.uuid)).json).toMatchObject({ position: 2 });
    // Its page listens again on the new process (a fresh client: pusher-js's own reconnection
    // schedule is pusher-js's business), and says so.
    before.disconnect();
    const after = await connectPusher(first);
    clients.push(after);
    const received = record((await subscribe(after, `App.Client.${page.queue.uuid}`)).channel, 'RequestUnqueud');
    expect((await ada.queueRequest(page)).json).toEqual({ uuid: page.queue.uuid, state: 'waiting' });

    expect(await adminRelease(second, 2)).toEqual([bobPage.queue.uuid, page.queue.uuid]);
    await eventually(
      'the release event on the restarted instance',
      async () => received.length,
      (n) => n > 0,
    );
    const replay = await ada.post(page.queue.uri, { form: { uuid: page.queue.uuid, _token: page.csrfToken } });
    const again = await sameBrowserOn(ada, second).post(page.queue.uri, {
      form: { uuid: page.queue.uuid, _token: page.csrfToken },
    });

    expect(received).toEqual([{ uuid: page.queue.uuid }]);
    expect(replay.status).toBe(200);
    expect(replay.text).toContain('a <strong>POST</strong> request');
    expect(replay.text).toContain('<th>quantity</th><td>3</td>');
    expect(replay.text).toContain('<th>note</th><td>gift wrap</td>');
    expect(again.status).toBe(409);
    expect(again.json).toEqual({ error: { code: 'already_replayed', message: 'This held request was already replayed.' } });
    // The origin got the held POST once, from whichever instance, and nothing else but GETs.
    const posts = origin.received.filter((one) => one.method !== 'GET');
    expect(posts.map((one) => [one.method, one.url, one.body.toString()])).toEqual([['POST', '/checkout?item=42', 'quantity=3&note=gift+wrap']]);
  });
});
