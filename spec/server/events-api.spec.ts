import { createHash, createHmac } from 'node:crypto';
import Pusher from 'pusher';
import type { Started } from '../../server/process/start';
import { RawSocket, rawListener } from './support/realtime';
import { startServer } from './support/server';

const APP = { appId: 'waiting-room', key: 'waiting-room-key', secret: 'events-api-secret' };

/** Signs a request the way the Pusher HTTP API documents it, independently of the server's code. */
function signedUrl(server: Started, body: string, overrides: Record<string, string> = {}, path = `/apps/${APP.appId}/events`) {
  const params: Record<string, string> = {
    auth_key: APP.key,
    auth_timestamp: String(Math.floor(Date.now() / 1000)),
    auth_version: '1.0',
    body_md5: createHash('md5').update(body).digest('hex'),
    ...overrides,
  };
  const query = Object.keys(params)
    .sort()
    .map((key) => `${key}=${params[key]}`)
    .join('&');
  const signature = createHmac('sha256', APP.secret).update(`POST\n${path}\n${query}`).digest('hex');
  return `${server.url}${path}?${query}&auth_signature=${signature}`;
}

describe('HTTP events API', () => {
  let server: Started;
  let pusher: Pusher;
  const sockets: RawSocket[] = [];

  beforeAll(async () => {
    server = await startServer({ PUSHER_SECRET: APP.secret });
    pusher = new Pusher({ ...APP, host: '127.0.0.1', port: String(server.port), useTLS: false });
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.close();
  });
  afterAll(() => server.close());

  const listener = (channel: string) => rawListener(server, channel, sockets);

  it("should deliver the pusher SDK's trigger to the channel's subscribers", async () => {
    const socket = await listener('App.Client.one');
    const other = await listener('App.Client.two');

    const response = await pusher.trigger('App.Client.one', 'RequestUnqueud', { uuid: 'one' });
    const event = await socket.next('RequestUnqueud');
    await pusher.trigger('App.Client.two', 'marker', {});
    await other.next('marker');

    expect(response.status).toBe(200);
    expect(event).toEqual({ event: 'RequestUnqueud', channel: 'App.Client.one', data: '{"uuid":"one"}' });
    expect(other.messages.filter((message) => message.event === 'RequestUnqueud')).toEqual([]);
  });

  it('should deliver a batch, and leave out the socket named by socket_id', async () => {
    const sender = await listener('App.Client.batch');
    const receiver = await listener('App.Client.batch');
    const senderId = await sender.socketId();

    await pusher.triggerBatch([
      { channel: 'App.Client.batch', name: 'first', data: { n: 1 }, socket_id: senderId },
      { channel: 'App.Client.batch', name: 'second', data: { n: 2 } },
    ]);
    await receiver.next('second');
    await sender.next('second');

    expect(receiver.messages.filter((message) => message.event === 'first')).toHaveLength(1);
    expect(sender.messages.filter((message) => message.event === 'first')).toEqual([]);
  });

  it('should take a full batch of large events, beyond the 64 KB limit of other bodies', async () => {
    const socket = await listener('App.Client.large');
    const data = 'x'.repeat(9 * 1024);

    const response = await pusher.triggerBatch(Array.from({ length: 10 }, (_, i) => ({ channel: 'App.Client.large', name: `large-${i}`, data })));
    const last = await socket.next('large-9');

    expect(response.status).toBe(200);
    expect(last.data).toBe(data);
  });

  it('should refuse a wrong secret, key, app id, stale timestamp or body checksum', async () => {
    const body = JSON.stringify({ name: 'x', channels: ['App.Client.a'], data: '{}' });
    const post = (url: string, sent = body) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: sent });
    const wrongSecret = new Pusher({ ...APP, secret: 'wrong', host: '127.0.0.1', port: String(server.port), useTLS: false });

    const answers = await Promise.all([
      wrongSecret.trigger('App.Client.a', 'x', {}).then(
        () => 200,
        (error: { status: number }) => error.status,
      ),
      post(signedUrl(server, body, { auth_key: 'other-key' })).then((response) => response.status),
      post(signedUrl(server, body, {}, '/apps/other-app/events')).then((response) => response.status),
      post(signedUrl(server, body, { auth_timestamp: String(Math.floor(Date.now() / 1000) - 601) })).then((response) => response.status),
      post(signedUrl(server, body), body.replace('"x"', '"y"')).then((response) => response.status),
      post(signedUrl(server, body)).then((response) => response.status),
    ]);

    expect(answers).toEqual([401, 401, 404, 401, 401, 200]);
  });

  it('should explain what is wrong with a signed but invalid event', async () => {
    const bad = async (event: unknown) => {
      const body = JSON.stringify(event);
      const response = await fetch(signedUrl(server, body), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      return { status: response.status, code: (await response.json()).error.code };
    };

    expect(await bad({ channels: ['App.Client.a'], data: '{}' })).toEqual({ status: 400, code: 'bad_event' });
    expect(await bad({ name: 'x', data: '{}' })).toEqual({ status: 400, code: 'bad_event' });
    expect(await bad({ name: 'x', channels: ['bad channel'], data: '{}' })).toEqual({ status: 400, code: 'bad_channel' });
    expect(await bad({ name: 'x', channel: 'App.Client.a', data: 'x'.repeat(10241) })).toEqual({
      status: 413,
      code: 'payload_too_large',
    });
    expect(await bad({ name: 'x', channel: 'App.Client.a', data: '{}', socket_id: 'abc' })).toEqual({
      status: 400,
      code: 'bad_socket_id',
    });
  });
});
