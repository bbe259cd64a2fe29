import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import PusherServer from 'pusher';
import type Pusher from 'pusher-js';
import type { ChannelAuthorizationCallback } from 'pusher-js';
import type { PageConfigJson } from '@waiting-room/streams/contract';
import type { Started } from '../../server/process/start';
import { ManualClock } from './support/manual-clock';
import { authorizeThrough, connectPusher, RawSocket, record, subscribe } from './support/realtime';
import { admin, startServer, waitFor } from './support/server';
import { Visitor } from './support/visitor';
import WebSocket from 'ws';

const SECRET = 'embedded-secret-known-to-the-test';
const clientChannel = (page: PageConfigJson) => `App.Client.${page.queue.uuid}`;
const userChannel = (page: PageConfigJson) => `private-App.User.${page.user.id}.${page.queue.uuid}`;

describe('realtime: pusher-js against the embedded server', () => {
  let server: Started;
  const clients: Pusher[] = [];

  beforeEach(async () => {
    server = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', PUSHER_SECRET: SECRET }, { clock: new ManualClock() });
    await new Visitor(server.url).get('/checkout');
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await server.close();
  });

  const connect = async (options = {}) => {
    const client = await connectPusher(server, options);
    clients.push(client);
    return client;
  };

  it("should deliver the release to an anonymous visitor's public channel, and to no other", async () => {
    const ada = new Visitor(server.url);
    const bob = new Visitor(server.url);
    const adaPage = await ada.hold();
    const bobPage = await bob.hold();
    const adaChannel = (await subscribe(await connect(), clientChannel(adaPage))).channel;
    const bobChannel = (await subscribe(await connect(), clientChannel(bobPage))).channel;
    const toAda = record(adaChannel, 'RequestUnqueud');
    const toBob = record(bobChannel, 'RequestUnqueud');

    await admin(server, 'POST', 'release', { count: 1 });
    await waitFor(() => toAda.length === 1, 'the release on Ada’s channel');
    await admin(server, 'POST', 'release', { count: 1 });
    await waitFor(() => toBob.length === 1, 'the release on Bob’s channel');

    expect(toAda).toEqual([{ uuid: adaPage.queue.uuid }]);
    expect(toBob).toEqual([{ uuid: bobPage.queue.uuid }]);
  });

  it("should authorize a signed-in visitor's own private channel and deliver the release there", async () => {
    const ada = new Visitor(server.url);
    await ada.signIn('Ada');
    const page = await ada.hold();
    const client = await connect({ channelAuthorization: authorizeThrough(server, ada, page.csrfToken) });

    const { channel, error } = await subscribe(client, userChannel(page));
    const received = record(channel, 'RequestUnqueud');
    await admin(server, 'POST', 'release', { count: 1 });
    await waitFor(() => received.length === 1, 'the release on the private channel');

    expect(error).toBeUndefined();
    expect(received).toEqual([{ uuid: page.queue.uuid }]);
  });

  it("should refuse to authorize someone else's channel, and refuse a forged signature", async () => {
    const ada = new Visitor(server.url);
    await ada.signIn('Ada');
    const adaPage = await ada.hold();
    const eve = new Visitor(server.url);
    await eve.signIn('Eve');
    const evePage = await eve.hold();
    const eveClient = await connect({ channelAuthorization: authorizeThrough(server, eve, evePage.csrfToken) });
    const forger = await connect({
      channelAuthorization: {
        endpoint: 'unused',
        transport: 'ajax',
        customHandler: (_params: unknown, callback: ChannelAuthorizationCallback) => callback(null, { auth: `waiting-room-key:${'0'.repeat(64)}` }),
      },
    });

    const refused = await subscribe(eveClient, userChannel(adaPage));
    const forged = await subscribe(forger, userChannel(adaPage));
    const received = record(forged.channel, 'RequestUnqueud');
    await admin(server, 'POST', 'release', { count: 1 });
    const own = await subscribe(eveClient, userChannel(evePage));

    // pusher-js reports a failed authorization call as an AuthError on the channel.
    expect(refused.error).toMatchObject({ type: 'AuthError' });
    expect(String(refused.error.error)).toMatch(/403/);
    expect(forged.error).toEqual({ type: 'AuthError', error: 'Invalid signature for this socket and channel.', status: 401 });
    expect(own.error).toBeUndefined();
    expect(received).toEqual([]);
  });

  it('should send the release again on queue_request after a reconnect', async () => {
    const ada = new Visitor(server.url);
    const page = await ada.hold();
    await admin(server, 'POST', 'release', { count: 1 });
    // The page was not listening when the release went out: it reconnects, subscribes, asks.
    const { channel } = await subscribe(await connect(), clientChannel(page));
    const received = record(channel, 'RequestUnqueud');

    const answer = await ada.queueRequest(page);
    await waitFor(() => received.length === 1, 'the re-sent release');

    expect(answer.status).toBe(202);
    expect(answer.json).toEqual({ uuid: page.queue.uuid, state: 'released' });
    expect(received).toEqual([{ uuid: page.queue.uuid }]);
  });

  it('should publish nothing on a silent release, until the page asks with queue_request', async () => {
    const ada = new Visitor(server.url);
    const page = await ada.hold();
    const client = await connect();
    const { channel } = await subscribe(client, clientChannel(page));
    const received = record(channel, 'RequestUnqueud');
    const marker = record(channel, 'marker');

    await admin(server, 'POST', 'release', { count: 1, silent: true });
    // Events on one channel arrive in order: once a marker sent after the release is in,
    // a release event would have been too.
    await new PusherServer({
      appId: 'waiting-room',
      key: 'waiting-room-key',
      secret: SECRET,
      host: '127.0.0.1',
      port: String(server.port),
    }).trigger(clientChannel(page), 'marker', { after: 'release' });
    await waitFor(() => marker.length === 1, 'the marker');

    expect((await ada.queueInfo(page.queue.uuid)).json.position).toBe(0);
    expect(received).toEqual([]);

    await ada.queueRequest(page);
    await waitFor(() => received.length === 1, 'the release after queue_request');
    expect(received).toEqual([{ uuid: page.queue.uuid }]);
  });
});

describe('realtime: the protocol frame by frame', () => {
  let server: Started;
  const sockets: RawSocket[] = [];

  beforeAll(async () => {
    server = await startServer({ REALTIME_ACTIVITY_TIMEOUT: '1', REALTIME_PONG_TIMEOUT: '0.3' });
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.close();
  });
  afterAll(() => server.close());

  const open = async (path?: string) => {
    const socket = await RawSocket.open(server, path);
    sockets.push(socket);
    return socket;
  };

  it('should greet with a digits.digits socket id and the activity timeout, and answer ping with pong', async () => {
    const socket = await open();
    const established = await socket.next('pusher:connection_established');
    socket.send({ event: 'pusher:ping', data: {} });

    expect(JSON.parse(established.data)).toEqual({ socket_id: expect.stringMatching(/^\d+\.\d+$/), activity_timeout: 1 });
    expect(await socket.next('pusher:pong')).toEqual({ event: 'pusher:pong', data: {} });
  });

  it('should ping an idle client and close with 4201 when no pong comes', async () => {
    const socket = await open();

    expect(await socket.next('pusher:ping', 3000)).toEqual({ event: 'pusher:ping', data: {} });
    expect(await socket.closed).toEqual({ code: 4201, reason: 'Pong reply not received in time.' });
    expect(socket.messages.at(-1)).toEqual({
      event: 'pusher:error',
      data: { code: 4201, message: 'Pong reply not received in time.' },
    });
  });

  it('should keep a client that answers the ping', async () => {
    const socket = await open();
    await socket.next('pusher:ping', 3000);
    socket.send({ event: 'pusher:pong', data: {} });

    // A second ping means the server kept the connection through a whole idle period.
    expect(await socket.next('pusher:ping', 3000, 1)).toEqual({ event: 'pusher:ping', data: {} });
  });

  it('should refuse an unknown app key with 4001 and an unsupported protocol with 4007', async () => {
    const unknown = await open('/app/nobody?protocol=7');
    const old = await open('/app/waiting-room-key?protocol=3');
    const none = await open('/app/waiting-room-key');

    expect(await unknown.closed).toEqual({ code: 4001, reason: 'Unknown app key.' });
    expect(unknown.messages).toEqual([{ event: 'pusher:error', data: { code: 4001, message: 'Unknown app key.' } }]);
    expect((await old.closed).code).toBe(4007);
    expect((await none.closed).code).toBe(4007);
  });

  it('should close an unauthorized sign-in with 4009', async () => {
    const socket = await open();
    await socket.socketId();
    socket.send({ event: 'pusher:signin', data: { auth: 'waiting-room-key:bad', user_data: '{"id":"1"}' } });

    expect((await socket.closed).code).toBe(4009);
    expect(socket.messages.at(-1)).toMatchObject({ event: 'pusher:error', data: { code: 4009 } });
  });

  it('should answer bad messages with pusher:error and keep the connection', async () => {
    const socket = await open();
    await socket.socketId();
    socket.send('not json');
    socket.send({ event: 'client-hello', channel: 'App.Client.x', data: {} });
    socket.send({ event: 'pusher:subscribe', data: { channel: 'bad channel!' } });
    socket.send({ event: 'pusher:subscribe', data: { channel: 'presence-room' } });
    socket.send({ event: 'pusher:subscribe', data: { channel: 'private-App.User.1.x', auth: 'nope' } });
    socket.send({ event: 'pusher:ping', data: {} });

    await socket.next('pusher:pong');
    expect(socket.messages.slice(1)).toEqual([
      { event: 'pusher:error', data: { code: null, message: 'Messages must be JSON objects with an "event" name.' } },
      { event: 'pusher:error', data: { code: null, message: 'Client events are not enabled on this server.' } },
      {
        event: 'pusher:subscription_error',
        channel: 'bad channel!',
        data: { type: 'InvalidChannel', error: 'Invalid channel name.', status: 400 },
      },
      {
        event: 'pusher:subscription_error',
        channel: 'presence-room',
        data: { type: 'UnsupportedChannel', error: 'Presence channels are not supported.', status: 501 },
      },
      {
        event: 'pusher:subscription_error',
        channel: 'private-App.User.1.x',
        data: { type: 'AuthError', error: 'Invalid signature for this socket and channel.', status: 401 },
      },
      { event: 'pusher:pong', data: {} },
    ]);
  });

  it('should keep a pusher-js client connected across idle periods', async () => {
    const client = await connectPusher(server);
    const states: string[] = [];
    client.connection.bind('state_change', ({ current }: { current: string }) => states.push(current));
    try {
      const socket = await open();
      // Two full idle periods of the raw socket's clock: 1 s activity timeout each.
      await socket.next('pusher:ping', 3000);
      socket.send({ event: 'pusher:pong', data: {} });
      await socket.next('pusher:ping', 3000, 1);

      expect(client.connection.state).toBe('connected');
      expect(states).toEqual([]);
    } finally {
      client.disconnect();
    }
  });
});

describe('realtime: shutting down', () => {
  let server: Started;

  beforeEach(async () => {
    server = await startServer();
  });
  afterEach(() => server.close());

  it('should stop accepting connections once closing starts, so that clients reconnect elsewhere', async () => {
    // The server waits for this client to answer its close frame, so it stays in the middle of closing.
    const silent = await SilentClient.open(server.port);
    const closing = server.close();
    try {
      const toldToReconnect = await silent.closeCode();
      // The port is closed at once: a load balancer sends the reconnecting client to another instance.
      const refused = await upgradeStatus(server.port).then(String, (error: NodeJS.ErrnoException) => error.code);
      await closing;

      expect(toldToReconnect).toBe(4200);
      expect(refused).toBe('ECONNREFUSED');
    } finally {
      silent.destroy();
    }
  });
});

/** The status a WebSocket upgrade to the embedded server gets: 101 when it opens. */
function upgradeStatus(port: number): Promise<number> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/app/waiting-room-key?protocol=7&client=js&version=8.6.0`);
  return new Promise((resolve, reject) => {
    ws.once('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('open', () => {
      resolve(101);
      ws.terminate();
    });
    ws.once('error', reject);
  });
}

/** A WebSocket client on a bare TCP socket that reads frames but never answers a close frame. */
class SilentClient {
  private received = Buffer.alloc(0);
  private waiters: Array<() => void> = [];

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      for (const wake of this.waiters.splice(0)) wake();
    });
    socket.on('error', () => undefined);
  }

  static async open(port: number): Promise<SilentClient> {
    const socket = connect(port, '127.0.0.1');
    const client = new SilentClient(socket);
    socket.write(
      'GET /app/waiting-room-key?protocol=7&client=js&version=8.6.0 HTTP/1.1\r\n' +
        'Host: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    await client.until(() => client.frames() !== undefined && client.frames()!.length > 0);
    return client;
  }

  /** The code of the server's close frame, once it comes. */
  async closeCode(): Promise<number> {
    const close = () => this.frames()?.find((frame) => frame.opcode === 0x8);
    await this.until(() => close() !== undefined);
    return close()!.payload.readUInt16BE(0);
  }

  /** The server's complete frames so far, after the 101 answer; undefined before it. */
  private frames(): Array<{ opcode: number; payload: Buffer }> | undefined {
    const end = this.received.indexOf('\r\n\r\n');
    if (end === -1) return undefined;
    if (!this.received.subarray(0, end).toString().startsWith('HTTP/1.1 101')) throw new Error('Upgrade refused');
    const frames = [];
    let at = end + 4;
    while (at + 2 <= this.received.length) {
      let length = this.received[at + 1] & 0x7f;
      let start = at + 2;
      if (length === 126) {
        if (start + 2 > this.received.length) break;
        length = this.received.readUInt16BE(start);
        start += 2;
      } else if (length === 127) {
        throw new Error('No frame this large is expected');
      }
      if (start + length > this.received.length) break;
      frames.push({ opcode: this.received[at] & 0x0f, payload: this.received.subarray(start, start + length) });
      at = start + length;
    }
    return frames;
  }

  private async until(check: () => boolean): Promise<void> {
    const deadline = Date.now() + 5000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error('The server sent nothing expected within 5 s');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  destroy(): void {
    this.socket.destroy();
  }
}
