import type Pusher from 'pusher-js';
import type { RealtimeServer } from '../../server/realtime/server';
import type { Started } from '../../server/process/start';
import WebSocket from 'ws';
import { connectPusher, eventsApi, pusherClient, RawSocket, rawListener, record, startWithRealtime, subscribe } from './support/realtime';
import { waitFor } from './support/server';

const SECRET = 'limits-secret-known-to-the-test';

// Some of these send or publish for a few seconds.
jest.setTimeout(20_000);

/** Every message `socket` received under `event` so far. */
const all = (socket: RawSocket, event: string) => socket.messages.filter((message) => message.event === event);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('realtime limits: subscriptions per connection', () => {
  let server: Started;
  let realtime: RealtimeServer;
  const sockets: RawSocket[] = [];

  beforeAll(async () => {
    // Rate and buffer limits out of the way: only the subscription cap (the default, 4) answers.
    ({ server, realtime } = await startWithRealtime({
      PUSHER_SECRET: SECRET,
      REALTIME_MESSAGES_PER_SECOND: '10000',
      REALTIME_MAX_BUFFERED_BYTES: String(64 * 1024 * 1024),
    }));
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.close();
  });
  afterAll(() => server.close());

  const open = async () => {
    const socket = await RawSocket.open(server);
    sockets.push(socket);
    return socket;
  };
  const subscribe = (socket: RawSocket, channel: string) => socket.send({ event: 'pusher:subscribe', data: { channel } });
  const limitReached = (channel: string) => ({
    event: 'pusher:subscription_error',
    channel,
    data: { type: 'LimitReached', error: 'At most 4 channels per connection.', status: 4100 },
  });

  it('should grant 4 of 5,000 subscriptions on one socket, refuse the rest with LimitReached, and keep the socket', async () => {
    const socket = await open();
    const id = await socket.socketId();

    for (let i = 0; i < 5000; i++) subscribe(socket, `App.Client.${i}`);
    socket.send({ event: 'pusher:ping', data: {} });
    await socket.next('pusher:pong', 10_000);

    const granted = all(socket, 'pusher_internal:subscription_succeeded').map((message) => message.channel);
    const refused = all(socket, 'pusher:subscription_error');
    expect(granted).toEqual(['App.Client.0', 'App.Client.1', 'App.Client.2', 'App.Client.3']);
    expect(refused).toHaveLength(4996);
    expect(refused[0]).toEqual(limitReached('App.Client.4'));
    expect(refused.every((message) => message.data.type === 'LimitReached')).toBe(true);
    expect(realtime.subscriptionCount(id)).toBe(4);
    expect(socket.ws.readyState).toBe(socket.ws.OPEN);
  });

  it('should not count a channel already held twice, and free a slot on unsubscribe', async () => {
    const socket = await open();
    const id = await socket.socketId();
    for (const n of [0, 1, 2, 3]) subscribe(socket, `App.Client.${n}`);
    await socket.next('pusher_internal:subscription_succeeded', 5000, 3);

    subscribe(socket, 'App.Client.0');
    await socket.next('pusher_internal:subscription_succeeded', 5000, 4);
    subscribe(socket, 'App.Client.4');
    await socket.next('pusher:subscription_error');
    socket.send({ event: 'pusher:unsubscribe', data: { channel: 'App.Client.1' } });
    subscribe(socket, 'App.Client.4');
    await socket.next('pusher_internal:subscription_succeeded', 5000, 5);

    expect(socket.messages.slice(5).map((message) => [message.event, message.channel])).toEqual([
      ['pusher_internal:subscription_succeeded', 'App.Client.0'],
      ['pusher:subscription_error', 'App.Client.4'],
      ['pusher_internal:subscription_succeeded', 'App.Client.4'],
    ]);
    expect(realtime.subscriptionCount(id)).toBe(4);
  });

  it('should deliver on the channels granted and on none refused', async () => {
    const socket = await open();
    for (let i = 0; i < 6; i++) subscribe(socket, `App.Client.deliver${i}`);
    await socket.next('pusher:subscription_error', 5000, 1);

    // Events on one socket arrive in order: once the second is in, the first would have been.
    await eventsApi(server, SECRET).trigger('App.Client.deliver5', 'refused', {});
    await eventsApi(server, SECRET).trigger('App.Client.deliver3', 'granted', {});
    await socket.next('granted');

    expect(all(socket, 'refused')).toEqual([]);
  });
});

describe('realtime limits: connections per client address', () => {
  const sockets: RawSocket[] = [];
  const clients: Pusher[] = [];
  let server: Started | undefined;

  afterEach(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    for (const socket of sockets.splice(0)) socket.close();
    await server?.close();
    server = undefined;
  });

  /** A raw socket whose upgrade says it was forwarded for `address`: settled once open or refused. */
  const openFrom = async (address: string): Promise<RawSocket> => {
    const ws = new WebSocket(`ws://127.0.0.1:${server!.port}/app/waiting-room-key?protocol=7&client=js&version=8.6.0`, {
      headers: { 'x-forwarded-for': address },
    });
    const socket = new RawSocket(ws);
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    await Promise.race([socket.next('pusher:connection_established'), socket.closed]);
    return socket;
  };
  const refusedOf = (all: RawSocket[]) => all.filter((socket) => socket.messages.some((message) => message.event === 'pusher:error'));

  it('should refuse one address past its sockets, and let another visitor connect and hear its release at once', async () => {
    let realtime: RealtimeServer;
    ({ server, realtime } = await startWithRealtime({
      PUSHER_SECRET: SECRET,
      TRUST_PROXY: 'true',
      REALTIME_MAX_CONNECTIONS: '20',
      REALTIME_MAX_CONNECTIONS_PER_ADDRESS: '5',
    }));

    const flood = await Promise.all(Array.from({ length: 20 }, () => openFrom('203.0.113.66')));

    const refused = refusedOf(flood);
    expect(refused).toHaveLength(15);
    expect(await refused[0].closed).toEqual({ code: 4100, reason: 'Over capacity: too many connections from this address.' });
    expect(realtime.connectionsOf('203.0.113.66')).toBe(5);
    // Another visitor (the socket's own address, 127.0.0.1) connects, and a release reaches it.
    const visitor = await connectPusher(server);
    clients.push(visitor);
    const { channel, error } = await subscribe(visitor, 'App.Queue');
    expect(error).toBeUndefined();
    const heard = record(channel, 'released');
    const sent = Date.now();
    await eventsApi(server, SECRET).trigger('App.Queue', 'released', { uuid: 'x' });
    await waitFor(() => heard.length > 0, 'the release on the visitor’s socket');
    expect(Date.now() - sent).toBeLessThan(5000);
    // A socket of the flooding address that closes gives its slot back.
    flood.find((socket) => !refused.includes(socket))!.close();
    await waitFor(() => realtime.connectionsOf('203.0.113.66') === 4, 'the slot given back');
    expect(refusedOf([await openFrom('203.0.113.66')])).toHaveLength(0);
  });

  it('should count the sockets of one peer as one address when no proxy is trusted, whatever X-Forwarded-For says', async () => {
    let realtime: RealtimeServer;
    ({ server, realtime } = await startWithRealtime({ REALTIME_MAX_CONNECTIONS: '20', REALTIME_MAX_CONNECTIONS_PER_ADDRESS: '3' }));

    const opened = await Promise.all(['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4'].map((address) => openFrom(address)));

    expect(refusedOf(opened)).toHaveLength(1);
    expect(realtime.connectionsOf('127.0.0.1')).toBe(3);
  });
});

describe('realtime limits: connections per process', () => {
  let server: Started;
  let realtime: RealtimeServer;
  const sockets: RawSocket[] = [];
  const clients: Pusher[] = [];

  beforeAll(async () => {
    ({ server, realtime } = await startWithRealtime({ REALTIME_MAX_CONNECTIONS: '3' }));
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    for (const socket of sockets.splice(0)) socket.close();
    await waitFor(() => realtime.connectionCount === 0, 'every connection of the test gone');
  });
  afterAll(() => server.close());

  const open = async () => {
    const socket = await RawSocket.open(server);
    sockets.push(socket);
    return socket;
  };
  const fill = async () => {
    const held = [await open(), await open(), await open()];
    await Promise.all(held.map((socket) => socket.socketId()));
    return held;
  };

  it('should refuse a connection past REALTIME_MAX_CONNECTIONS with 4100, and hold nothing for it', async () => {
    const held = await fill();
    const refused = await open();

    expect(await refused.closed).toEqual({ code: 4100, reason: 'Over capacity.' });
    expect(refused.messages).toEqual([{ event: 'pusher:error', data: { code: 4100, message: 'Over capacity.' } }]);
    expect(realtime.connectionCount).toBe(3);
    // The connections held are untouched.
    held[0].send({ event: 'pusher:ping', data: {} });
    expect(await held[0].next('pusher:pong')).toEqual({ event: 'pusher:pong', data: {} });
  });

  it('should let a pusher-js client refused while full back off, then connect once there is room', async () => {
    const held = await fill();
    const client = pusherClient(server);
    clients.push(client);
    const errors: any[] = [];
    const retries: number[] = [];
    client.connection.bind('error', (error: unknown) => errors.push(error));
    client.connection.bind('connecting_in', (seconds: number) => retries.push(seconds));

    await waitFor(() => errors.length > 0, 'the refusal');
    expect(client.connection.state).not.toBe('connected');
    held[0].close();
    await waitFor(() => client.connection.state === 'connected', 'pusher-js connected after backing off');

    expect(errors[0]).toEqual({
      type: 'WebSocketError',
      error: { type: 'PusherError', data: { code: 4100, message: 'Over capacity.' } },
    });
    // 4100 is "back off": pusher-js tries again a second later.
    expect(retries[0]).toBe(1);
    expect(realtime.connectionCount).toBe(3);
  });

  it('should count a connection gone once it closes', async () => {
    const held = await fill();
    held[1].close();
    await waitFor(() => realtime.connectionCount === 2, 'the closed connection gone');

    const client = await connectPusher(server);
    clients.push(client);
    expect(client.connection.state).toBe('connected');
    expect(realtime.connectionCount).toBe(3);
  });
});

describe('realtime limits: messages per second (10, a burst of 20)', () => {
  let server: Started;
  const sockets: RawSocket[] = [];

  beforeAll(async () => {
    ({ server } = await startWithRealtime());
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.close();
  });
  afterAll(() => server.close());

  const open = async () => {
    const socket = await RawSocket.open(server);
    sockets.push(socket);
    await socket.socketId();
    return socket;
  };
  const ping = (socket: RawSocket) => socket.send({ event: 'pusher:ping', data: {} });
  const rateLimited = {
    event: 'pusher:error',
    data: { code: 4301, message: 'Client event rejected due to rate limit: at most 10 messages a second.' },
  };

  it('should answer a burst of 2,000 pings with the burst’s 20 pongs and one 4301 error, and keep the socket', async () => {
    const socket = await open();
    for (let i = 0; i < 2000; i++) ping(socket);
    await socket.next('pusher:error');
    // A second later the burst is long read, and the bucket has refilled: one more ping is answered.
    await pause(1100);
    const burstPongs = all(socket, 'pusher:pong').length;
    ping(socket);
    await socket.next('pusher:pong', 5000, burstPongs);

    // 20 for the burst, and one for each 100 ms the server took to read the 2,000 (on a busy machine).
    expect(burstPongs).toBeGreaterThanOrEqual(20);
    expect(burstPongs).toBeLessThanOrEqual(25);
    expect(all(socket, 'pusher:error')).toEqual([rateLimited]);
    expect(socket.ws.readyState).toBe(socket.ws.OPEN);
  });

  it('should tell a client over the limit once a second at most, and keep it while it is not flooding', async () => {
    const socket = await open();
    const started = Date.now();
    let sent = 0;
    // 30 a second, three times the rate, for 2.5 s.
    while (Date.now() - started < 2500) {
      for (let i = 0; i < 3; i++) ping(socket);
      sent += 3;
      await pause(100);
    }
    const seconds = (Date.now() - started) / 1000;
    await pause(1100);
    const pongs = all(socket, 'pusher:pong').length;
    ping(socket);
    await socket.next('pusher:pong', 5000, pongs);

    const errors = all(socket, 'pusher:error');
    // Many dropped, few told.
    expect(sent - pongs).toBeGreaterThanOrEqual(10);
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(errors.length).toBeLessThanOrEqual(Math.ceil(seconds));
    expect(errors.every((error) => error.data.code === 4301)).toBe(true);
    // The burst, then 10 a second.
    expect(pongs).toBeLessThanOrEqual(20 + Math.ceil(10 * seconds));
    expect(socket.ws.readyState).toBe(socket.ws.OPEN);
  });

  it('should close with 4301 a socket that keeps sending over ten times the rate for three seconds', async () => {
    const socket = await open();
    const started = Date.now();
    let closed = false;
    void socket.closed.then(() => (closed = true));
    // 2,500 a second until the server closes (or 8 s pass).
    while (!closed && Date.now() - started < 8000) {
      for (let i = 0; i < 50; i++) ping(socket);
      await pause(20);
    }
    const elapsed = Date.now() - started;

    expect(await socket.closed).toEqual({ code: 4301, reason: 'Rate limit exceeded many times over; closing.' });
    expect(socket.messages.at(-1)).toEqual({
      event: 'pusher:error',
      data: { code: 4301, message: 'Rate limit exceeded many times over; closing.' },
    });
    // Three windows of a second: the third opens two seconds after the first at the earliest.
    expect(elapsed).toBeGreaterThanOrEqual(2000);
    expect(elapsed).toBeLessThan(6000);
  });
});

describe('realtime limits: a client that does not read', () => {
  let server: Started;
  let realtime: RealtimeServer;
  const sockets: RawSocket[] = [];

  beforeAll(async () => {
    ({ server, realtime } = await startWithRealtime({ PUSHER_SECRET: SECRET, REALTIME_MAX_BUFFERED_BYTES: '65536' }));
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.close();
  });
  afterAll(() => server.close());

  const listener = (channel: string) => rawListener(server, channel, sockets);

  it('should drop a socket whose output waiting passes the bound, while a reading socket gets every event', async () => {
    const reader = await listener('App.Queue');
    const stalled = await listener('App.Queue');
    // From now on it reads nothing: what the server sends fills the kernel's buffers (a few MB),
    // then the server's own.
    stalled.ws.pause();
    const api = eventsApi(server, SECRET);
    const data = 'x'.repeat(9 * 1024);

    let published = 0;
    while (realtime.connectionCount === 2 && published < 5000) {
      await api.trigger('App.Queue', 'large', { n: published, data });
      published += 1;
    }
    await waitFor(() => all(reader, 'large').length === published, 'every event at the reading socket');

    // Closed with 4100, then dropped a second later, as it never reads the close frame either.
    expect(realtime.connectionCount).toBe(1);
    expect(published).toBeLessThan(5000);
    expect(all(reader, 'large').map((message) => JSON.parse(message.data).n)).toEqual([...Array(published).keys()]);
    expect(reader.ws.readyState).toBe(reader.ws.OPEN);
  });
});
