import Redis from 'ioredis';
import PusherServer from 'pusher';
import type Pusher from 'pusher-js';
import { loadConfig } from '../../server/process/config';
import { createFanout } from '../../server/realtime/create-fanout';
import { LocalFanout, type ChannelMessage } from '../../server/realtime/fanout';
import { FanoutUnavailableError } from '../../server/realtime/fanout-error';
import { RedisFanout, type FanoutLog } from '../../server/realtime/redis-fanout';
import type { Started } from '../../server/process/start';
import { RedisStore } from '../../server/store/redis/redis-store';
import { eventually } from '../support/eventually';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { connectPusher, record, subscribe } from './support/realtime';
import { admin, startServer } from './support/server';
import { Visitor } from './support/visitor';

const release = (uuid: string): ChannelMessage => ({
  channel: `App.Client.${uuid}`,
  event: 'RequestUnqueud',
  data: JSON.stringify({ uuid }),
});

/** A log that keeps what it was told. */
function recordingLog(): FanoutLog & { lines: string[] } {
  const lines: string[] = [];
  const keep = (...args: unknown[]) => {
    lines.push(String(args.find((arg) => typeof arg === 'string')));
  };
  return { lines, info: keep, warn: keep };
}

jest.setTimeout(20_000);

let redis: RedisServer;
/** A plain client, to look at the subscriptions and to publish by hand. */
let look: Redis;
let rooms = 0;
const opened: Array<{ close(): Promise<void> }> = [];

/** A fanout on its own room (prefix), closed after the test, with what it delivers. */
function fanoutOn(prefix: string, log?: FanoutLog) {
  const fanout = new RedisFanout(redis.url, { prefix, log });
  const delivered: ChannelMessage[] = [];
  fanout.onMessage((message) => delivered.push(message));
  opened.push(fanout);
  return { fanout, delivered };
}

const subscribers = async (channel: string) => Number(((await look.pubsub('NUMSUB', channel)) as [string, number])[1]);

beforeAll(async () => {
  redis = await startRedisServer();
  look = new Redis(redis.url, { maxRetriesPerRequest: 0, retryStrategy: () => 50 });
  look.on('error', () => undefined);
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((part) => part.close()));
});
afterAll(async () => {
  look?.disconnect();
  await redis?.close();
});

describe('Redis fanout: one audience across instances', () => {
  it('should deliver an event exactly once on every instance, the publishing one included', async () => {
    const room = `room${++rooms}:`;
    const one = fanoutOn(room);
    const two = fanoutOn(room);
    const three = fanoutOn(room);
    expect(await Promise.all([one, two, three].map(({ fanout }) => fanout.ready(5000)))).toEqual([true, true, true]);

    const first = { ...release('0b7c5d2e-0000-4000-8000-000000000001'), exceptSocketId: '123.456' };
    await one.fanout.publish(first);
    // Pub/sub keeps the order of one connection's messages: once the second event is there,
    // a duplicate of the first would have come before it.
    const second = release('0b7c5d2e-0000-4000-8000-000000000002');
    await one.fanout.publish(second);
    for (const { delivered } of [one, two, three]) {
      await eventually(
        'both events',
        async () => delivered.length,
        (length) => length >= 2,
      );
    }

    expect(one.delivered).toEqual([first, second]);
    expect(two.delivered).toEqual([first, second]);
    expect(three.delivered).toEqual([first, second]);
  });

  it('should name its channel after the room, so that rooms sharing one Redis never hear each other', async () => {
    const red = fanoutOn(`room${++rooms}:`);
    const blue = fanoutOn(`room${++rooms}:`);
    const blueToo = fanoutOn(blue.fanout.channel.replace(/fanout$/, ''));
    await Promise.all([red, blue, blueToo].map(({ fanout }) => fanout.ready(5000)));

    await red.fanout.publish(release('0b7c5d2e-0000-4000-8000-000000000003'));
    const toBlue = release('0b7c5d2e-0000-4000-8000-000000000004');
    await blue.fanout.publish(toBlue);
    await eventually(
      'the blue event on the other blue instance',
      async () => blueToo.delivered.length,
      (n) => n >= 1,
    );

    expect(red.fanout.channel).toBe(`room${rooms - 1}:fanout`);
    expect(blueToo.delivered).toEqual([toBlue]);
    expect(blue.delivered).toEqual([toBlue]);
  });

  it('should use the store’s default prefix, wr:', () => {
    const fanout = new RedisFanout(redis.url);
    opened.push(fanout);

    expect(fanout.channel).toBe('wr:fanout');
  });

  it('should ignore, and log, a message on its channel that is not an event envelope', async () => {
    const log = recordingLog();
    const room = `room${++rooms}:`;
    const { fanout, delivered } = fanoutOn(room, log);
    await fanout.ready(5000);

    await look.publish(`${room}fanout`, 'not json');
    await look.publish(`${room}fanout`, JSON.stringify({ o: 'someone', c: 'App.Client.x', e: 'RequestUnqueud', d: 42 }));
    const event = release('0b7c5d2e-0000-4000-8000-000000000005');
    await look.publish(`${room}fanout`, JSON.stringify({ o: 'someone', c: event.channel, e: event.event, d: event.data }));
    await eventually(
      'the valid event',
      async () => delivered.length,
      (n) => n >= 1,
    );

    expect(delivered).toEqual([event]);
    expect(log.lines.filter((line) => line.includes('cannot read'))).toHaveLength(2);
  });

  it('should fail a publish clearly while Redis is frozen, after delivering to its own clients, and work again once it thaws', async () => {
    const room = `room${++rooms}:`;
    const one = fanoutOn(room);
    const two = fanoutOn(room);
    await Promise.all([one.fanout.ready(5000), two.fanout.ready(5000)]);
    const during = release('0b7c5d2e-0000-4000-8000-000000000006');

    redis.pause();
    let failure: unknown;
    try {
      await one.fanout.publish(during);
    } catch (error) {
      failure = error;
    } finally {
      redis.resume();
    }

    expect(failure).toBeInstanceOf(FanoutUnavailableError);
    expect(String(failure)).toMatch(/reached this instance's clients only; Redis is unreachable/);
    expect(one.delivered).toEqual([during]);
    const after = release('0b7c5d2e-0000-4000-8000-000000000007');
    await one.fanout.publish(after);
    await eventually(
      'the event after the thaw',
      async () => two.delivered.at(-1)?.data,
      (last) => last === after.data,
    );
    // The frozen Redis had the timed-out PUBLISH in its socket: it may arrive late, never twice.
    expect(two.delivered.filter((message) => message.data === during.data).length).toBeLessThanOrEqual(1);
    expect(two.delivered.filter((message) => message.data === after.data)).toEqual([after]);
  });

  it('should fail a publish at once while Redis is down, and subscribe again by itself when it is back', async () => {
    const log = recordingLog();
    const room = `room${++rooms}:`;
    const one = fanoutOn(room, log);
    const two = fanoutOn(room);
    await Promise.all([one.fanout.ready(5000), two.fanout.ready(5000)]);

    await redis.stop();
    try {
      const down = release('0b7c5d2e-0000-4000-8000-000000000008');
      await expect(two.fanout.publish(down)).rejects.toThrow(FanoutUnavailableError);
      expect(two.delivered).toEqual([down]);
      await eventually(
        'the subscription lost',
        () => one.fanout.ready(0),
        (subscribed) => !subscribed,
      );
    } finally {
      await redis.start();
    }

    expect(await one.fanout.ready(10_000)).toBe(true);
    await eventually(
      'both instances subscribed again',
      () => subscribers(`${room}fanout`),
      (count) => count === 2,
    );
    const back = release('0b7c5d2e-0000-4000-8000-000000000009');
    await two.fanout.publish(back);
    await eventually(
      'the event after Redis came back',
      async () => one.delivered.length,
      (n) => n >= 1,
    );

    expect(one.delivered).toEqual([back]);
    expect(log.lines).toEqual(expect.arrayContaining([expect.stringMatching(/lost Redis/), expect.stringMatching(/subscribed again/)]));
  });

  it('should notice a subscription that no longer answers, and subscribe again on a new connection', async () => {
    const log = recordingLog();
    const room = `room${++rooms}:`;
    // A frozen Redis answers nothing and closes nothing, as a connection a NAT silently dropped.
    const quietly = new RedisFanout(redis.url, { prefix: room, log, heartbeatMs: 100 });
    opened.push(quietly);
    const delivered: ChannelMessage[] = [];
    quietly.onMessage((message) => delivered.push(message));
    const other = fanoutOn(room);
    await Promise.all([quietly.ready(5000), other.fanout.ready(5000)]);

    redis.pause();
    try {
      await eventually(
        'the heartbeat failing',
        async () => log.lines,
        (lines) => lines.some((l) => /heard nothing/.test(l)),
      );
    } finally {
      redis.resume();
    }
    await eventually(
      'subscribed again',
      async () => log.lines,
      (lines) => lines.some((l) => /subscribed again/.test(l)),
    );
    const event = release('0b7c5d2e-0000-4000-8000-00000000000c');
    await other.fanout.publish(event);
    await eventually(
      'the event on the new connection',
      async () => delivered.length,
      (n) => n >= 1,
    );

    expect(delivered).toEqual([event]);
  });

  it('should subscribe once Redis is reachable when it was not at start', async () => {
    await redis.stop();
    const room = `room${++rooms}:`;
    const late = fanoutOn(room);
    try {
      expect(await late.fanout.ready(300)).toBe(false);
    } finally {
      await redis.start();
    }

    expect(await late.fanout.ready(10_000)).toBe(true);
    const other = fanoutOn(room);
    await other.fanout.ready(5000);
    const event = release('0b7c5d2e-0000-4000-8000-00000000000a');
    await other.fanout.publish(event);
    await eventually(
      'the event',
      async () => late.delivered.length,
      (n) => n >= 1,
    );
    expect(late.delivered).toEqual([event]);
  });

  it('should deliver nothing once closed, leave the channel, and refuse to publish', async () => {
    const room = `room${++rooms}:`;
    const one = fanoutOn(room);
    const two = fanoutOn(room);
    await Promise.all([one.fanout.ready(5000), two.fanout.ready(5000)]);

    await one.fanout.close();
    await one.fanout.close();

    await expect(one.fanout.publish(release('0b7c5d2e-0000-4000-8000-00000000000b'))).rejects.toThrow(/closed/);
    expect(one.delivered).toEqual([]);
    expect(await subscribers(`${room}fanout`)).toBe(1);
  });
});

describe('choosing the fanout', () => {
  const outside = { PUSHER_APP_ID: '1', PUSHER_KEY: 'key', PUSHER_SECRET: 'secret', PUSHER_HOST: 'soketi.invalid' };
  const quiet = recordingLog();

  it('should use Redis pub/sub with the queue in Redis and the embedded realtime server', async () => {
    const fanout = await createFanout(loadConfig({ REDIS_URL: redis.url }), quiet);
    opened.push(fanout);

    expect(fanout).toBeInstanceOf(RedisFanout);
    expect(await subscribers('wr:fanout')).toBe(1);
  });

  it('should make no Redis connection for an outside Pusher-protocol server, which fans out itself, nor for one instance', async () => {
    const clientsBefore = (await look.client('LIST')) as string;
    const withOutside = await createFanout(loadConfig({ REDIS_URL: redis.url, ...outside }), quiet);
    const alone = await createFanout(loadConfig({}), quiet);
    opened.push(withOutside, alone);

    expect(withOutside).toBeInstanceOf(LocalFanout);
    expect(alone).toBeInstanceOf(LocalFanout);
    expect(((await look.client('LIST')) as string).split('\n').length).toBe(clientsBefore.split('\n').length);
  });

  it('should start a server with an outside realtime server and REDIS_URL without subscribing to any fanout', async () => {
    const server = await startServer({ REDIS_URL: redis.url, ...outside });
    opened.push(server);

    expect(await subscribers('wr:fanout')).toBe(0);
    expect((await admin(server, 'GET', 'stats')).status).toBe(200);
  });
});

describe('release events when the fanout fails but the queue does not', () => {
  /** The fanout's own Redis, apart from the queue's, so that it can fail alone. */
  let fanoutRedis: RedisServer;
  let lookAtFanout: Redis;
  let first: Started;
  let second: Started;
  const clients: Pusher[] = [];
  const SECRET = 'shared-embedded-secret';

  beforeAll(async () => {
    fanoutRedis = await startRedisServer();
    lookAtFanout = new Redis(fanoutRedis.url, { maxRetriesPerRequest: 0, retryStrategy: () => 50 });
    lookAtFanout.on('error', () => undefined);
  });
  afterAll(async () => {
    lookAtFanout?.disconnect();
    await fanoutRedis?.close();
  });
  const fanoutSubscribers = async (channel: string) => Number(((await lookAtFanout.pubsub('NUMSUB', channel)) as [string, number])[1]);
  beforeEach(async () => {
    const prefix = `room${++rooms}:`;
    const env = { ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', SESSION_SECRET: 's'.repeat(32), PUSHER_SECRET: SECRET };
    const instance = () => ({
      store: new RedisStore(redis.url, { prefix }),
      fanout: new RedisFanout(fanoutRedis.url, { prefix }),
    });
    const one = instance();
    const two = instance();
    first = await startServer(env, one);
    second = await startServer(env, two);
    opened.push(first, second);
    await Promise.all([one.fanout.ready(5000), two.fanout.ready(5000)]);
    // The room is full: the next visitor waits.
    await new Visitor(first.url).get('/checkout');
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.disconnect();
  });

  it('should answer the events API with a clear 503 while the fanout’s Redis is down', async () => {
    const trigger = new PusherServer({
      appId: 'waiting-room',
      key: 'waiting-room-key',
      secret: SECRET,
      host: '127.0.0.1',
      port: String(second.port),
    });
    await fanoutRedis.stop();
    let answer: { status?: number; body?: string } = {};
    try {
      await trigger.trigger('App.Client.anyone', 'RequestUnqueud', { uuid: 'anyone' });
    } catch (error) {
      answer = error as { status?: number; body?: string };
    } finally {
      await fanoutRedis.start();
    }

    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body ?? '{}')).toEqual({
      error: { code: 'realtime_unavailable', message: 'The event could not reach every instance; try again in a moment.' },
    });
  });

  it('should keep the release when its event is lost, and deliver it to the other instance when queue_request asks again', async () => {
    const ada = new Visitor(first.url);
    const page = await ada.hold();
    const client = await connectPusher(first);
    clients.push(client);
    const received = record((await subscribe(client, `App.Client.${page.queue.uuid}`)).channel, 'RequestUnqueud');

    await fanoutRedis.stop();
    const released = await admin(second, 'POST', 'release', { count: 1 });
    const position = await ada.queueInfo(page.queue.uuid);
    await fanoutRedis.start();

    expect(released.status).toBe(200);
    expect(((await released.json()) as { released: string[] }).released).toEqual([page.queue.uuid]);
    expect(position.json.position).toBe(0);
    expect(received).toEqual([]);

    // The page, seeing position 0, subscribes again and says it listens: here through the other instance.
    await eventually(
      'both fanouts subscribed again',
      () => fanoutSubscribers(`room${rooms}:fanout`),
      (n) => n === 2,
    );
    const onSecond = new Visitor(second.url);
    onSecond.cookie = ada.cookie;
    expect((await onSecond.queueRequest(page)).status).toBe(202);
    await eventually(
      'the release event re-sent through the other instance',
      async () => received.length,
      (n) => n >= 1,
    );

    expect(received).toEqual([{ uuid: page.queue.uuid }]);
  });
});
