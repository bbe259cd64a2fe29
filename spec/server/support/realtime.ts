import PusherServer from 'pusher';
import Pusher, { type Channel, type Options } from 'pusher-js';
import WebSocket from 'ws';
import { RealtimeServer } from '../../../server/realtime/server';
import type { Started } from '../../../server/process/start';
import { startServer } from './server';
import type { Visitor } from './visitor';

const KEY = 'waiting-room-key';

/**
 * Starts the real server as `startServer` does, and hands back its embedded realtime server
 * too, to read from the server's side what it holds (connections, subscriptions).
 */
export async function startWithRealtime(env: Record<string, string> = {}): Promise<{ server: Started; realtime: RealtimeServer }> {
  const attach = jest.spyOn(RealtimeServer.prototype, 'attach');
  try {
    const server = await startServer(env);
    const realtime = attach.mock.contexts.at(-1);
    if (!(realtime instanceof RealtimeServer)) throw new Error('The server started without its embedded realtime server');
    return { server, realtime };
  } finally {
    attach.mockRestore();
  }
}

/** The `pusher` SDK against the embedded server's events API, as the server's own publisher uses it. */
export function eventsApi(server: Started, secret: string): PusherServer {
  return new PusherServer({ appId: 'waiting-room', key: KEY, secret, host: '127.0.0.1', port: String(server.port) });
}

/**
 * Channel authorization as the page's pusher-js does it (form POST of socket_id and
 * channel_name to /pusher/auth, CSRF token as X-CSRF-TOKEN), plus the browser's session
 * cookie, which pusher-js's Node transport refuses to set.
 */
export function authorizeThrough(server: Started, visitor: Visitor, csrfToken: string): Options['channelAuthorization'] {
  return {
    endpoint: `${server.url}/pusher/auth`,
    transport: 'ajax',
    customHandler: ({ socketId, channelName }, callback) => {
      fetch(`${server.url}/pusher/auth`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-csrf-token': csrfToken,
          cookie: visitor.cookie,
        },
        body: new URLSearchParams({ socket_id: socketId, channel_name: channelName }).toString(),
      })
        .then(async (response) => {
          if (response.status !== 200) {
            callback(new Error(`Authorization failed with ${response.status}`), null);
          } else {
            callback(null, (await response.json()) as { auth: string });
          }
        })
        .catch((error: Error) => callback(error, null));
    },
  };
}

/**
 * A real pusher-js client against the embedded server, connecting. pusher-js 8 in Node needs a
 * `cluster` even with a host of its own, and `forceTLS: false` for ws://.
 */
export function pusherClient(server: Started, options: Partial<Options> = {}): Pusher {
  return new Pusher(KEY, {
    cluster: 'local',
    wsHost: '127.0.0.1',
    wsPort: server.port,
    forceTLS: false,
    enabledTransports: ['ws'],
    ...options,
  });
}

/** A real pusher-js client against the embedded server, connected. */
export async function connectPusher(server: Started, options: Partial<Options> = {}): Promise<Pusher> {
  const pusher = pusherClient(server, options);
  await new Promise<void>((resolve, reject) => {
    pusher.connection.bind('connected', () => resolve());
    pusher.connection.bind('failed', () => reject(new Error('pusher-js could not connect')));
  });
  return pusher;
}

/** Subscribes and waits for the outcome: success, or the subscription error's data. */
export function subscribe(pusher: Pusher, name: string): Promise<{ channel: Channel; error?: any }> {
  const channel = pusher.subscribe(name);
  return new Promise((resolve) => {
    channel.bind('pusher:subscription_succeeded', () => resolve({ channel }));
    channel.bind('pusher:subscription_error', (error: unknown) => resolve({ channel, error }));
  });
}

/** Every event `channel` receives under `event`, as they come. */
export function record(channel: Channel, event: string): unknown[] {
  const received: unknown[] = [];
  channel.bind(event, (data: unknown) => received.push(data));
  return received;
}

/** A raw WebSocket, to speak the protocol frame by frame. */
export class RawSocket {
  readonly messages: any[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: Array<() => void> = [];

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.messages.push(JSON.parse(data.toString()));
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  static open(server: Started, path = `/app/${KEY}?protocol=7&client=js&version=8.6.0`): Promise<RawSocket> {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}${path}`);
    const socket = new RawSocket(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(socket));
      ws.once('error', reject);
    });
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The first message (already received or to come) named `event` after the first `skip` of them. */
  async next(event: string, timeoutMs = 5000, skip = 0): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.filter((message) => message.event === event)[skip];
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`No ${event} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The socket id from the handshake. */
  async socketId(): Promise<string> {
    return JSON.parse((await this.next('pusher:connection_established')).data).socket_id;
  }

  close(): void {
    this.ws.terminate();
  }
}

/**
 * A raw socket subscribed to `channel` once the server said so; it is added to `sockets`, for the
 * test to close after it.
 */
export async function rawListener(server: Started, channel: string, sockets: RawSocket[]): Promise<RawSocket> {
  const socket = await RawSocket.open(server);
  sockets.push(socket);
  socket.send({ event: 'pusher:subscribe', data: { channel } });
  await socket.next('pusher_internal:subscription_succeeded');
  return socket;
}
