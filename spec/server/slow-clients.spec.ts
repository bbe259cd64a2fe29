import type { Socket } from 'node:net';
import { serverTimeouts } from '../../server/http/edge';
import { openRaw, parseResponse, rawRequest, readUntilClosed } from './support/raw-http';
import { startServer, type StartedWithOrigin } from './support/server';

/** Writes `text` one character every `everyMs` until it is all sent or the socket closes. */
function trickle(socket: Socket, text: string, everyMs: number): void {
  let sent = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || sent >= text.length) {
      clearInterval(timer);
      return;
    }
    socket.write(text[sent++] ?? '');
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
}

const POST_HEADERS = 'POST /queue/request HTTP/1.1\r\nHost: waiting-room.test\r\nContent-Type: application/json\r\nContent-Length: 200\r\n';

// Each case waits for a timeout: they run at once, each on its own connections.
describe('slow clients', () => {
  // Started here, not in beforeAll: Jest starts concurrent tests before beforeAll hooks run.
  const serving: Promise<StartedWithOrigin> = startServer({
    REQUEST_TIMEOUT_SECONDS: '2',
    HEADERS_TIMEOUT_SECONDS: '1',
    KEEP_ALIVE_TIMEOUT_SECONDS: '1',
  });
  afterAll(async () => (await serving).close());

  it.concurrent('should answer a body that trickles in with 408 in the error contract, and close it', async () => {
    const server = await serving;
    const socket = await openRaw(server.port);
    const answer = readUntilClosed(socket);
    socket.write(`${POST_HEADERS}\r\n`);
    trickle(socket, '{"uuid": "'.padEnd(200, 'x'), 500);

    const { status, json, headers, closedAfterMs } = await answer;

    expect(status).toBe(408);
    expect(json).toEqual({ error: { code: 'request_timeout', message: expect.any(String) } });
    expect(headers['cache-control']).toBe('no-store');
    expect(closedAfterMs).toBeGreaterThanOrEqual(1900);
    expect(closedAfterMs).toBeLessThan(4000);
  });

  it.concurrent('should answer headers that trickle in with 408, and close the connection', async () => {
    const server = await serving;
    const socket = await openRaw(server.port);
    const answer = readUntilClosed(socket);
    trickle(socket, `${POST_HEADERS}X-Slow: ${'x'.repeat(100)}\r\n\r\n`, 100);

    const { status, json, closedAfterMs } = await answer;

    expect(status).toBe(408);
    expect(json.error.code).toBe('request_timeout');
    expect(closedAfterMs).toBeGreaterThanOrEqual(900);
    expect(closedAfterMs).toBeLessThan(3000);
  });

  it.concurrent('should close a connection that sends nothing at all', async () => {
    const server = await serving;
    const socket = await openRaw(server.port);

    const { status, closedAfterMs } = await readUntilClosed(socket);

    expect(status).toBe(408);
    expect(closedAfterMs).toBeLessThan(3000);
  });

  it.concurrent('should close every one of many slow connections (Slowloris) within the bound', async () => {
    const server = await serving;
    const sockets = await Promise.all(Array.from({ length: 20 }, () => openRaw(server.port)));
    const answers = sockets.map((socket) => readUntilClosed(socket));
    for (const socket of sockets) {
      socket.write(`${POST_HEADERS}\r\n`);
      trickle(socket, 'x'.repeat(200), 500);
    }

    const closed = await Promise.all(answers);

    expect(closed.map((answer) => answer.status)).toEqual(Array(20).fill(408));
    expect(Math.max(...closed.map((answer) => answer.closedAfterMs))).toBeLessThan(4000);
  });

  it.concurrent('should show a browser whose upload is too slow the error page in its language', async () => {
    const server = await serving;
    const socket = await openRaw(server.port);
    const answer = readUntilClosed(socket);
    socket.write(
      'POST /checkout HTTP/1.1\r\nHost: waiting-room.test\r\nContent-Type: application/x-www-form-urlencoded\r\n' +
        'Content-Length: 100\r\nAccept: text/html,application/xhtml+xml,*/*;q=0.8\r\nAccept-Language: fr-FR,fr;q=0.9\r\n\r\n',
    );
    trickle(socket, 'quantity=1', 500);

    const { status, headers, body } = await answer;

    expect(status).toBe(408);
    expect(headers['content-type']).toBe('text/html; charset=utf-8');
    expect(body).toContain('<html lang="fr"');
    expect(body).toContain('Erreur 408');
  });

  it.concurrent('should answer 408 to a slow request that follows another on a keep-alive connection', async () => {
    const server = await serving;
    const socket = await openRaw(server.port);
    const answer = readUntilClosed(socket);
    socket.write('GET /favicon.ico HTTP/1.1\r\nHost: waiting-room.test\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 100));
    trickle(socket, `${POST_HEADERS}\r\n`, 100);

    const { status, body } = await answer;
    const second = parseResponse(body.slice(body.indexOf('HTTP/1.1 ')));

    // The first is the origin's to answer.
    expect(status).toBe(200);
    expect(body).toContain('origin: GET /favicon.ico');
    expect(second.status).toBe(408);
    expect(second.json.error.code).toBe('request_timeout');
  });

  it.concurrent('should serve a request that arrives in time, in pieces, as usual', async () => {
    const server = await serving;
    const socket = await openRaw(server.port);
    const answer = readUntilClosed(socket);
    const request = rawRequest('GET', '/', { 'x-padding': 'x'.repeat(20) });
    socket.write(request.slice(0, 20));
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.write(request.slice(20));

    const { status, body } = await answer;

    expect(status).toBe(200);
    // The origin's home page, through the gateway.
    expect(body).toContain('<h1>A shop</h1>');
  });

  it.concurrent('should close an idle keep-alive connection after the keep-alive timeout', async () => {
    const server = await serving;
    const socket = await openRaw(server.port);
    const answer = readUntilClosed(socket);
    socket.write('GET /favicon.ico HTTP/1.1\r\nHost: waiting-room.test\r\n\r\n');

    const { status, body, closedAfterMs } = await answer;

    expect(status).toBe(200);
    expect(body).toContain('origin: GET /favicon.ico');
    expect(closedAfterMs).toBeGreaterThanOrEqual(900);
    expect(closedAfterMs).toBeLessThan(3000);
  });
});

describe('closing with a slow client connected', () => {
  it('should still close within its grace', async () => {
    const server = await startServer({ REQUEST_TIMEOUT_SECONDS: '30', HEADERS_TIMEOUT_SECONDS: '10' });
    const socket = await openRaw(server.port);
    const answer = readUntilClosed(socket);
    socket.write(`${POST_HEADERS}\r\n`);
    trickle(socket, 'x'.repeat(200), 200);
    await new Promise((resolve) => setTimeout(resolve, 300));

    const started = Date.now();
    await server.close();
    const closedIn = Date.now() - started;
    await answer;

    expect(closedIn).toBeLessThan(3000);
    expect(socket.destroyed).toBe(true);
  });
});

describe('serverTimeouts', () => {
  it('should check the connections often enough for the shortest timeout to hold', () => {
    expect(serverTimeouts({ requestTimeoutMs: 30_000, headersTimeoutMs: 10_000, keepAliveTimeoutMs: 5000 })).toEqual({
      requestTimeout: 30_000,
      keepAliveTimeout: 5000,
      http: { requestTimeout: 30_000, headersTimeout: 10_000, connectionsCheckingInterval: 1000 },
    });
    expect(serverTimeouts({ requestTimeoutMs: 2000, headersTimeoutMs: 1000, keepAliveTimeoutMs: 1000 }).http).toEqual({
      requestTimeout: 2000,
      headersTimeout: 1000,
      connectionsCheckingInterval: 500,
    });
  });

  it('should cut a headers timeout longer than the request timeout, which Node refuses', () => {
    expect(serverTimeouts({ requestTimeoutMs: 1000, headersTimeoutMs: 10_000, keepAliveTimeoutMs: 5000 }).http).toEqual({
      requestTimeout: 1000,
      headersTimeout: 1000,
      connectionsCheckingInterval: 500,
    });
  });
});
