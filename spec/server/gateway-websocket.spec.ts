import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { SESSION_COOKIE } from '../../server/http/session';
import { ManualClock } from './support/manual-clock';
import { RawSocket } from './support/realtime';
import { startServer, waitFor, type StartedWithOrigin } from './support/server';
import { Visitor } from './support/visitor';

/** An origin whose WebSocket server answers on every path, echoing each message with its path. */
interface SocketOrigin {
  readonly url: string;
  /** The handshake of every socket the origin accepted: path and headers. */
  readonly handshakes: Array<{ url: string; headers: IncomingHttpHeaders }>;
  close(): Promise<void>;
}

async function startSocketOrigin(): Promise<SocketOrigin> {
  const handshakes: SocketOrigin['handshakes'] = [];
  const server = createServer((_req, res) => res.end('origin'));
  const wss = new WebSocketServer({ server });
  wss.on('connection', (socket: WebSocket, req: IncomingMessage) => {
    handshakes.push({ url: req.url ?? '', headers: req.headers });
    socket.on('message', (data) => socket.send(`echo ${req.url}: ${data.toString()}`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    handshakes,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** How a WebSocket to the gateway ended up: open, or refused with the HTTP status it got (0: none). */
function connect(url: string, headers: Record<string, string> = {}): Promise<{ socket?: WebSocket; refused?: number }> {
  const socket = new WebSocket(url, { headers });
  return new Promise((resolve) => {
    socket.once('open', () => resolve({ socket }));
    socket.once('unexpected-response', (_req, res) => {
      resolve({ refused: res.statusCode ?? 0 });
      socket.terminate();
    });
    socket.once('error', () => resolve({ refused: 0 }));
  });
}

function nextMessage(socket: WebSocket, timeoutMs = 3000): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`No message within ${timeoutMs} ms`)), timeoutMs);
    socket.once('message', (data) => {
      clearTimeout(timer);
      resolve(data.toString());
    });
  });
}

describe('gateway: WebSockets', () => {
  let origin: SocketOrigin;
  let server: StartedWithOrigin;
  const sockets: WebSocket[] = [];

  beforeEach(async () => {
    origin = await startSocketOrigin();
    server = await startServer({ UPSTREAM: origin.url, ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' }, { clock: new ManualClock() });
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.terminate();
    await server.close();
    await origin.close();
  });

  it("should carry an unprotected socket's messages both ways to the origin's socket", async () => {
    const { socket } = await connect(`ws://127.0.0.1:${server.port}/live?room=1`, {
      cookie: `${SESSION_COOKIE}=not-for-the-origin; theme=dark`,
      'x-forwarded-for': '6.6.6.6',
      authorization: 'Bearer origin-token',
      'user-agent': 'socket-test/1.0',
    });
    expect(socket).toBeDefined();
    sockets.push(socket as WebSocket);

    const first = nextMessage(socket as WebSocket);
    socket?.send('hello');
    expect(await first).toBe('echo /live?room=1: hello');
    const second = nextMessage(socket as WebSocket);
    socket?.send('again');
    expect(await second).toBe('echo /live?room=1: again');

    expect(origin.handshakes).toHaveLength(1);
    const { headers } = origin.handshakes[0] ?? { headers: {} };
    expect(headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(headers.cookie).toBe('theme=dark');
    expect(headers.authorization).toBe('Bearer origin-token');
    expect(headers['user-agent']).toBe('socket-test/1.0');
  });

  it('should still serve the embedded realtime server at /app/{key}', async () => {
    const raw = await RawSocket.open(server, '/app/waiting-room-key?protocol=7');
    sockets.push(raw.ws);

    const established = await raw.next('pusher:connection_established', 3000);

    expect(JSON.parse(established.data).socket_id).toMatch(/^\d+\.\d+$/);
    expect(origin.handshakes).toHaveLength(0);
  });

  it('should refuse an upgrade to a protected path while the room is full, and let an admitted session in', async () => {
    const occupant = new Visitor(server.url);
    expect((await occupant.get('/checkout')).status).toBe(200);

    const stranger = await connect(`ws://127.0.0.1:${server.port}/checkout/live`);
    const admitted = await connect(`ws://127.0.0.1:${server.port}/checkout/live`, { cookie: occupant.cookie });
    if (admitted.socket) sockets.push(admitted.socket);

    expect(stranger).toEqual({ refused: 503 });
    expect(admitted.socket).toBeDefined();
    await waitFor(() => origin.handshakes.length > 0, "the admitted session's socket at the origin", 3000);
    expect(origin.handshakes.map((one) => one.url)).toEqual(['/checkout/live']);
  });
});
