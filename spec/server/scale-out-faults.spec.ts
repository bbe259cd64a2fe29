import Redis from 'ioredis';
import type Pusher from 'pusher-js';
import type { PageConfigJson } from '@waiting-room/streams/contract';
import { eventually } from '../support/eventually';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { sameBrowserOn, setPaused, startInstance, type Instance } from '../support/scale-out';
import { stopAllServerProcesses } from '../support/server-process';
import { connectPusher, record, subscribe } from './support/realtime';
import { Visitor, type Answer } from './support/visitor';

jest.setTimeout(40_000);

const UNAVAILABLE = {
  error: { code: 'store_unavailable', message: 'The waiting room is busy; try again in a moment.' },
};

/** What every call that needs the queue answers while Redis is away. */
function expectUnavailable(answer: Answer): void {
  expect({ status: answer.status, retryAfter: answer.headers.get('retry-after'), body: answer.json }).toEqual({
    status: 503,
    retryAfter: '2',
    body: UNAVAILABLE,
  });
}

/** `work`, or a clear failure when it has not settled after `seconds` (a hang, not slowness). */
async function settlesWithin<T>(seconds: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} still unanswered after ${seconds} s`)), seconds * 1000);
  });
  try {
    return await Promise.race([work, hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** Lines each release loop logged for a failed step. */
const failedSteps = (instance: Instance) => instance.process.output().split('release step failed').length - 1;

/**
 * Redis away while visitors wait, with two server processes. The first admits one session, so
 * visitors arriving there are held, and never releases by itself; the second runs the release
 * loop (paused by the admin API until the test lets it release).
 */
describe('scale-out: Redis unreachable for a while', () => {
  let redis: RedisServer;
  let first: Instance;
  let second: Instance;
  /** A plain client, to see who listens on the fanout's channel. */
  let look: Redis;
  const clients: Pusher[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    look = new Redis(redis.url, { maxRetriesPerRequest: 0, retryStrategy: () => 50 });
    look.on('error', () => undefined);
    [first, second] = await Promise.all([
      startInstance({ REDIS_URL: redis.url, ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' }),
      startInstance({ REDIS_URL: redis.url, ACTIVE_LIMIT: '10', RELEASE_PER_MINUTE: '600' }),
    ]);
  });
  afterEach(() => {
    // Whatever happened, the next test finds Redis answering.
    redis.resume();
  });
  afterAll(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    look?.disconnect();
    await stopAllServerProcesses();
    await redis?.close();
  });

  /** Fills the first instance and holds a visitor there, listening on its channel through the first. */
  async function waitingVisitor(item: string) {
    await setPaused(first, true);
    await new Visitor(first.url).get('/checkout');
    const visitor = new Visitor(first.url);
    const page = await visitor.hold(`/checkout?item=${item}`);
    const client = await connectPusher(first);
    clients.push(client);
    const received = record((await subscribe(client, `App.Client.${page.queue.uuid}`)).channel, 'RequestUnqueud');
    expect((await visitor.queueRequest(page)).status).toBe(202);
    return { visitor, page, received };
  }

  /** Every kind of call that needs the queue, on both instances, for `page`'s visitor. */
  async function callsNeedingTheQueue(visitor: Visitor, page: PageConfigJson): Promise<Answer[]> {
    const onSecond = sameBrowserOn(visitor, second);
    return Promise.all([
      onSecond.queueInfo(page.queue.uuid),
      visitor.queueRequest(page),
      // A newcomer asking for a protected page: its request cannot even be held.
      new Visitor(second.url).get('/checkout?item=new'),
      // A replay form for a held request.
      onSecond.post('/checkout', { form: { uuid: page.queue.uuid, _token: page.csrfToken } }),
      // Channel authorization looks the place up.
      visitor.post(
        '/pusher/auth',
        { form: { socket_id: '123.456', channel_name: `private-App.User.1.${page.queue.uuid}` } },
        { 'x-csrf-token': page.csrfToken },
      ),
      onSecond.get('/queue/info/00000000-0000-4000-8000-000000000000'),
    ]);
  }

  it('should answer 503 with Retry-After while Redis is frozen, keep running, and release the visitor once it thaws', async () => {
    const { visitor, page, received } = await waitingVisitor('frozen');
    const before = failedSteps(second);

    redis.pause();
    const answers = await settlesWithin(10, 'a call while Redis is frozen', callsNeedingTheQueue(visitor, page));
    const stats = await settlesWithin(10, 'admin stats', second.admin('GET', 'stats'));
    // A person arriving meanwhile: a page that says so and loads itself again, rather than a hang.
    const arriving = await settlesWithin(10, 'a browser arriving', new Visitor(second.url).get('/checkout?item=arriving', { accept: 'text/html' }));
    // The release loop keeps stepping, and logs each failed step.
    await eventually(
      'a failed release step logged',
      async () => failedSteps(second),
      (n) => n > before,
    );
    const running = [first.process.running(), second.process.running()];
    redis.resume();

    answers.forEach(expectUnavailable);
    expect(stats.status).toBe(503);
    expect(arriving.status).toBe(503);
    expect(arriving.headers.get('retry-after')).toBe('2');
    expect(arriving.text).toContain('<meta http-equiv="refresh" content="2">');
    expect(arriving.text).toContain('The waiting room is busy; try again in a moment.');
    expect(running).toEqual([true, true]);
    // Back by itself: same place, same line.
    await eventually(
      'queue_info answering again',
      () => sameBrowserOn(visitor, second).queueInfo(page.queue.uuid),
      (a) => a.status === 200,
    );
    expect((await visitor.queueInfo(page.queue.uuid)).json).toMatchObject({ position: 1 });
    await setPaused(second, false);
    await eventually(
      'the release event',
      async () => received.length,
      (n) => n > 0,
    );
    expect(received).toEqual([{ uuid: page.queue.uuid }]);
    expect((await visitor.queueInfo(page.queue.uuid)).json).toMatchObject({ position: 0 });
  });

  it('should answer 503 at once while Redis is down, and work again, fanout included, once it is back', async () => {
    const { visitor, page } = await waitingVisitor('down');

    await redis.stop();
    const answers = await settlesWithin(10, 'a call while Redis is down', callsNeedingTheQueue(visitor, page));
    const before = failedSteps(second);
    await eventually(
      'a failed release step logged',
      async () => failedSteps(second),
      (n) => n > before,
    );
    const running = [first.process.running(), second.process.running()];
    await redis.start();

    answers.forEach(expectUnavailable);
    expect(running).toEqual([true, true]);
    // This Redis keeps nothing on disk, so the line restarted empty: the place was Redis's to keep.
    await eventually(
      'the line answering again',
      () => visitor.queueInfo(page.queue.uuid),
      (a) => a.status !== 503,
    );
    expect((await visitor.queueInfo(page.queue.uuid)).status).toBe(404);
    // Both instances are subscribed again: a release decided on the second reaches the first.
    const listening = async () => ((await look.pubsub('NUMSUB', 'wr:fanout')) as [string, number])[1];
    await eventually('both fanouts subscribed again', listening, (count) => Number(count) === 2);
    const next = await waitingVisitor('after');
    await setPaused(second, false);
    await eventually(
      'the release event after Redis came back',
      async () => next.received.length,
      (n) => n > 0,
    );
    expect(next.received).toEqual([{ uuid: next.page.queue.uuid }]);
  });
});

describe('scale-out: an instance starting before Redis accepts connections', () => {
  let redis: RedisServer;
  afterAll(async () => {
    await stopAllServerProcesses();
    await redis?.close();
  });

  it('should wait for Redis, then put the declared events there, with no warning', async () => {
    redis = await startRedisServer();
    // Nothing listens on Redis's port for the instance's first attempts, as while a container starts.
    await redis.stop();
    const starting = setTimeout(() => void redis.start(), 1500);
    try {
      const drop = { name: 'Spring drop', eventStartTime: '2030-05-01T10:00:00Z', eventEndTime: '2030-05-01T11:00:00Z' };
      const instance = await startInstance({ REDIS_URL: redis.url, EVENTS: JSON.stringify([drop]) });
      const events = (await (await instance.admin('GET', 'events')).json()) as { name: string }[];
      expect({ events: events.map((event) => event.name), output: instance.process.output() }).toEqual({
        events: ['Spring drop'],
        output: expect.not.stringMatching(/"level":(40|50|60)/),
      });
    } finally {
      clearTimeout(starting);
    }
  });
});
