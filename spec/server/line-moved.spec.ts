import type Pusher from 'pusher-js';
import { NEVER, of, Subject, VirtualTimeScheduler } from 'rxjs';
import { createQueue$, type ConnectionState, type QueueStatus } from '@waiting-room/streams';
import type { LineMoved, PageConfigJson, QueueInfo } from '@waiting-room/streams/contract';
import { RedisFanout } from '../../server/realtime/redis-fanout';
import type { Started } from '../../server/process/start';
import { RedisStore } from '../../server/store/redis/redis-store';
import { eventually } from '../support/eventually';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { ManualClock } from './support/manual-clock';
import { connectPusher, RawSocket, subscribe } from './support/realtime';
import { admin, startServer } from './support/server';
import { Visitor } from './support/visitor';

jest.setTimeout(20_000);

const QUEUE = 'App.Queue';
const clientChannel = (page: PageConfigJson) => `App.Client.${page.queue.uuid}`;

/** One event a listener heard, on any of its channels, in the order they arrived. */
interface Heard {
  readonly channel: string;
  readonly event: string;
  readonly data: unknown;
}

/** Records, in arrival order, every `RequestUnqueud` and `QueueMoved` on the given channels of one client. */
async function listen(client: Pusher, channels: readonly string[]): Promise<Heard[]> {
  const heard: Heard[] = [];
  for (const name of channels) {
    const { channel, error } = await subscribe(client, name);
    expect(error).toBeUndefined();
    for (const event of ['RequestUnqueud', 'QueueMoved']) channel.bind(event, (data: unknown) => heard.push({ channel: name, event, data }));
  }
  return heard;
}

const moves = (heard: readonly Heard[]) => heard.filter((one) => one.event === 'QueueMoved');

/** The position the page's stream core shows once told one queue_info answer, then the moves heard, in that order. */
function positionShown(answer: QueueInfo, heard: readonly LineMoved[]): number | undefined {
  // Frame 0 only: the first poll runs, the next (60 s later) never comes.
  const scheduler = new VirtualTimeScheduler(undefined, 0);
  const moved$ = new Subject<LineMoved>();
  const status$ = createQueue$(
    {
      state$: of<ConnectionState>('connected'),
      error$: NEVER,
      subscribed$: NEVER,
      release$: NEVER,
      subscribe: () => NEVER,
      queueInfo: () => of(answer),
      queueRequest: () => NEVER,
      moved$,
    },
    { anonymous: false, request: { uuid: 'u', uri: '/checkout', method: 'GET', hash: '' }, scheduler },
  );
  let shown: QueueStatus | undefined;
  const subscription = status$.subscribe((status) => (shown = status));
  scheduler.flush();
  for (const move of heard) moved$.next(move);
  subscription.unsubscribe();
  return shown?.kind === 'waiting' ? shown.position : undefined;
}

describe('line moved: queue_info carries ticket and served, and each release batch publishes one QueueMoved on App.Queue', () => {
  let server: Started;
  let clock: ManualClock | undefined;
  const clients: Pusher[] = [];

  const start = async (env: Record<string, string>, withClock = false) => {
    clock = withClock ? new ManualClock() : undefined;
    server = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', ...env }, { clock });
    // The room is full: every visitor after this one waits.
    await new Visitor(server.url).get('/checkout');
  };
  const connect = async () => {
    const client = await connectPusher(server);
    clients.push(client);
    return client;
  };
  const holdAll = async (count: number) => {
    const pages: PageConfigJson[] = [];
    for (let i = 0; i < count; i++) pages.push(await new Visitor(server.url).hold());
    return pages;
  };
  const ticketOf = async (page: PageConfigJson): Promise<number> => (await new Visitor(server.url).queueInfo(page.queue.uuid)).json.ticket as number;
  const release = async (count: number, silent = false) => {
    const answer = await admin(server, 'POST', 'release', { count, silent });
    expect(answer.status).toBe(200);
    return ((await answer.json()) as { released: string[] }).released;
  };

  afterEach(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await server?.close();
  });

  it('should answer queue_info with ticket and served for a waiting visitor (position = ticket - served), and only position and estimated once released', async () => {
    await start({});
    const pages = await holdAll(3);
    const before = await Promise.all(pages.map(async (page) => (await new Visitor(server.url).queueInfo(page.queue.uuid)).json));
    const served = before[0].served as number;
    expect(before).toEqual([
      { position: 1, estimated: expect.any(Number), ticket: served + 1, served },
      { position: 2, estimated: expect.any(Number), ticket: served + 2, served },
      { position: 3, estimated: expect.any(Number), ticket: served + 3, served },
    ]);

    await release(1);
    const after = await Promise.all(pages.map(async (page) => (await new Visitor(server.url).queueInfo(page.queue.uuid)).json));
    expect(after).toEqual([
      { position: 0, estimated: 0 },
      { position: 1, estimated: expect.any(Number), ticket: served + 2, served: served + 1 },
      { position: 2, estimated: expect.any(Number), ticket: served + 3, served: served + 1 },
    ]);
  });

  it('should let anyone listen on App.Queue without authorization, and let nobody but the server publish there', async () => {
    await start({});
    const socket = await RawSocket.open(server);
    try {
      await socket.socketId();
      socket.send({ event: 'pusher:subscribe', data: { channel: QUEUE } });
      socket.send({ event: 'client-QueueMoved', channel: QUEUE, data: { served: 1_000_000 } });
      socket.send({ event: 'pusher:subscribe', data: { channel: 'private-App.User.1.x', auth: 'nope' } });
      await socket.next('pusher:subscription_error');

      expect(socket.messages.slice(1)).toEqual([
        { event: 'pusher_internal:subscription_succeeded', channel: QUEUE, data: '{}' },
        { event: 'pusher:error', data: { code: null, message: 'Client events are not enabled on this server.' } },
        {
          event: 'pusher:subscription_error',
          channel: 'private-App.User.1.x',
          data: { type: 'AuthError', error: 'Invalid signature for this socket and channel.', status: 401 },
        },
      ]);
    } finally {
      socket.close();
    }
  });

  it('should publish one QueueMoved per admin release, with the places that have left the head so far, after that batch’s release events', async () => {
    // One listener on the line and on four visitors' channels, to see the order across them.
    await start({ REALTIME_MAX_SUBSCRIPTIONS: '5' });
    const pages = await holdAll(4);
    const tickets = await Promise.all(pages.map(ticketOf));
    const heard = await listen(await connect(), [QUEUE, ...pages.map(clientChannel)]);

    await release(2);
    await eventually(
      'the first move',
      async () => moves(heard),
      (found) => found.length === 1,
    );
    await release(1);
    await eventually(
      'the second move',
      async () => moves(heard),
      (found) => found.length === 2,
    );

    // The released visitors' events first (in either order), then the move of their batch.
    expect(
      heard
        .slice(0, 2)
        .map((one) => one.channel)
        .sort(),
    ).toEqual([clientChannel(pages[0]), clientChannel(pages[1])].sort());
    expect(heard.slice(0, 2).every((one) => one.event === 'RequestUnqueud')).toBe(true);
    expect(heard.slice(2)).toEqual([
      { channel: QUEUE, event: 'QueueMoved', data: { served: tickets[1] } },
      { channel: clientChannel(pages[2]), event: 'RequestUnqueud', data: { uuid: pages[2].queue.uuid } },
      { channel: QUEUE, event: 'QueueMoved', data: { served: tickets[2] } },
    ]);
    // What the visitor still waiting is told agrees with its own answer.
    expect((await new Visitor(server.url).queueInfo(pages[3].queue.uuid)).json).toMatchObject({ position: 1, served: tickets[2] });
  });

  it('should publish the places that left the head, not a ticket, once a visitor in the middle walked away, so that each page shows its place', async () => {
    await start({ AWAY_SECONDS: '1' }, true);
    const pages = await holdAll(5);
    // The second one walks away; the others keep polling until the sweep has dropped it.
    const staying = pages.filter((_, i) => i !== 1);
    const ask = async (page: PageConfigJson) => (await new Visitor(server.url).queueInfo(page.queue.uuid)).json as QueueInfo;
    for (let elapsed = 0; elapsed < 3000; elapsed += 500) {
      await clock!.advance(500);
      for (const page of staying) await ask(page);
    }
    const answers = await Promise.all(staying.map(ask));
    const served = answers[0].served!;
    expect(answers).toEqual([1, 2, 3, 4].map((position) => ({ position, estimated: expect.any(Number), ticket: served + position, served })));
    const heard = await listen(await connect(), [QUEUE]);

    expect(await release(2)).toEqual([staying[0].queue.uuid, staying[1].queue.uuid]);
    await eventually(
      'the move',
      async () => moves(heard),
      (found) => found.length === 1,
    );

    expect(moves(heard)).toEqual([{ channel: QUEUE, event: 'QueueMoved', data: { served: served + 2 } }]);
    // The pages still waiting, fed the answer they had and the move, show what queue_info answers now.
    const [stillWaiting, answered] = [answers.slice(2), await Promise.all(staying.slice(2).map(ask))];
    expect(answered.map((answer) => answer.position)).toEqual([1, 2]);
    for (const [i, answer] of stillWaiting.entries()) {
      expect(positionShown(answer, [{ served: served + 2 }])).toBe(answered[i].position);
    }
  });

  it('should publish QueueMoved after a release loop step too', async () => {
    await start({ RELEASE_PER_MINUTE: '60', SESSION_SECONDS: '60', AWAY_SECONDS: '600' }, true);
    const pages = await holdAll(2);
    const tickets = await Promise.all(pages.map(ticketOf));
    const heard = await listen(await connect(), [QUEUE, ...pages.map(clientChannel)]);

    // The first admitted session ends after 60 s: the loop releases one.
    await clock!.advance(61_000);
    await eventually(
      'the move of the loop step',
      async () => moves(heard),
      (found) => found.length === 1,
    );

    expect(heard).toEqual([
      { channel: clientChannel(pages[0]), event: 'RequestUnqueud', data: { uuid: pages[0].queue.uuid } },
      { channel: QUEUE, event: 'QueueMoved', data: { served: tickets[0] } },
    ]);
  });

  it('should publish nothing for a silent release, nor for a release that finds nobody', async () => {
    await start({});
    const pages = await holdAll(2);
    const tickets = await Promise.all(pages.map(ticketOf));
    const heard = await listen(await connect(), [QUEUE, ...pages.map(clientChannel)]);

    expect(await release(1, true)).toEqual([pages[0].queue.uuid]);
    expect(await release(1)).toEqual([pages[1].queue.uuid]);
    expect(await release(1)).toEqual([]);
    // One more, heard after anything the calls above could have published on this connection.
    await holdAll(1);
    await release(1);
    await eventually(
      'the move of the last release',
      async () => moves(heard),
      (found) => found.length === 2,
    );

    expect(heard).toEqual([
      { channel: clientChannel(pages[1]), event: 'RequestUnqueud', data: { uuid: pages[1].queue.uuid } },
      { channel: QUEUE, event: 'QueueMoved', data: { served: tickets[1] } },
      { channel: QUEUE, event: 'QueueMoved', data: { served: tickets[1] + 1 } },
    ]);
  });

  it('should publish QueueMoved through an outside Pusher-protocol server', async () => {
    // Another server's embedded realtime part stands for soketi or Pusher Channels.
    const secret = 'outside-realtime-secret';
    const outside = await startServer({ PUSHER_SECRET: secret });
    try {
      await start({
        PUSHER_APP_ID: 'waiting-room',
        PUSHER_KEY: 'waiting-room-key',
        PUSHER_SECRET: secret,
        PUSHER_HOST: '127.0.0.1',
        PUSHER_PORT: String(outside.port),
        PUSHER_USE_TLS: 'false',
      });
      const [page] = await holdAll(1);
      const ticket = await ticketOf(page);
      const client = await connectPusher(outside);
      clients.push(client);
      const heard = await listen(client, [QUEUE]);

      await release(1);

      await eventually(
        'the move on the outside server',
        async () => heard,
        (found) => found.length === 1,
      );
      expect(heard).toEqual([{ channel: QUEUE, event: 'QueueMoved', data: { served: ticket } }]);
    } finally {
      await outside.close();
    }
  });
});

describe('line moved across instances on one Redis', () => {
  let redis: RedisServer;
  let first: Started;
  let second: Started;
  const clients: Pusher[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    const env = { ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', SESSION_SECRET: 's'.repeat(32), PUSHER_SECRET: 'shared-secret' };
    const instance = () => ({ store: new RedisStore(redis.url, { prefix: 'moved:' }), fanout: new RedisFanout(redis.url, { prefix: 'moved:' }) });
    const one = instance();
    const two = instance();
    first = await startServer(env, one);
    second = await startServer(env, two);
    await Promise.all([one.fanout.ready(5000), two.fanout.ready(5000)]);
    await new Visitor(first.url).get('/checkout');
  });
  afterAll(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await first?.close();
    await second?.close();
    await redis?.close();
  });

  it('should carry every instance’s QueueMoved to a page on either; whatever order they arrive in, the page ends where the line is', async () => {
    const pages: PageConfigJson[] = [];
    for (let i = 0; i < 7; i++) pages.push(await new Visitor(i % 2 ? second.url : first.url).hold());
    const waitingLast = (await new Visitor(first.url).queueInfo(pages[6].queue.uuid)).json as {
      position: number;
      estimated: number;
      ticket: number;
      served: number;
    };
    expect(waitingLast.position).toBe(7);
    const client = await connectPusher(first);
    clients.push(client);
    const heard = await listen(client, [QUEUE]);

    // Six single releases, three on each instance at once: each batch's move is published by the
    // instance that released it, so they may reach the listener in any order, and a move still on
    // its way when a newer one is out is dropped (only the latest matters: `latestOf`).
    const released = await Promise.all(
      [first, second, first, second, first, second].map(async (instance) => {
        const answer = await admin(instance, 'POST', 'release', { count: 1 });
        return ((await answer.json()) as { released: string[] }).released;
      }),
    );
    expect(released.flat().sort()).toEqual(
      pages
        .slice(0, 6)
        .map((page) => page.queue.uuid)
        .sort(),
    );
    const firstTicket = waitingLast.ticket - 6;
    const servedOf = (found: typeof heard) => found.map((one) => (one.data as { served: number }).served);
    await eventually(
      'the last move',
      async () => heard,
      (found) => servedOf(found).includes(firstTicket + 5),
    );

    // Each move heard once at most, each one of the six; the last one among them.
    const served = servedOf(heard);
    expect(new Set(served).size).toBe(served.length);
    for (const one of served) expect([0, 1, 2, 3, 4, 5].map((i) => firstTicket + i)).toContain(one);
    expect((await new Visitor(second.url).queueInfo(pages[6].queue.uuid)).json).toMatchObject({ position: 1 });

    // The page's core, fed the answer it had and the moves in the order heard, shows position 1.
    expect(
      positionShown(
        waitingLast,
        served.map((n) => ({ served: n })),
      ),
    ).toBe(1);
  });
});
