import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { signFeedToken } from '@waiting-room/connector';
import { bypassToken } from '../../server/http/gateway/bypass';
import { CLIENT_CLAIMS, ROUTING_OVERRIDES } from '../../server/http/gateway/headers';
import type { PageConfigJson } from '@waiting-room/streams/contract';
import { SESSION_COOKIE } from '../../server/http/session';
import { ManualClock } from './support/manual-clock';
import { openRaw, readUntilClosed } from './support/raw-http';
import { admin, startServer, stats, type StartedWithOrigin } from './support/server';
import { startTestOrigin, type TestOrigin } from './support/origin';
import { Visitor } from './support/visitor';

type Origin = TestOrigin;
type Received = Origin['received'][number];

/** What `/big` answers: a few MB that must come back byte for byte. */
const BIG = randomBytes(3 * 1024 * 1024 + 17);

/**
 * An origin that records every request and answers: `/status/<code>` with that status, its own
 * headers and two cookies; `/hop` adds hop-by-hop headers to its answer; `/cookie` sets `cart=after-hold`; `/sign-in` names user 7 to the waiting room; `/checkout/done` and `/thanks` revoke the visitor's session; `/big` sends BIG; `/hang` never
 * answers; `/busy` is a 503 with Retry-After; anything else 200 `origin: METHOD url`.
 */
function startOrigin(): Promise<Origin> {
  return startTestOrigin((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const status = /^\/status\/(\d{3})$/.exec(path);
    if (status) {
      res.writeHead(Number(status[1]), {
        'content-type': 'text/plain; charset=utf-8',
        'x-origin-header': 'kept as sent',
        'set-cookie': ['a=1; Path=/', 'b=2; Path=/; HttpOnly'],
      });
      res.end(`status ${status[1]}`);
    } else if (path === '/hop') {
      res.writeHead(200, { connection: 'keep-alive, X-Hop', 'x-hop': 'for this hop only', 'keep-alive': 'timeout=77', 'x-kept': 'end to end' });
      res.end('hop');
    } else if (path === '/sign-in') {
      res.writeHead(200, { 'waiting-room-user': '7' });
      res.end('signed in');
    } else if (path === '/checkout/done' || path === '/thanks') {
      res.writeHead(200, { 'waiting-room-command': 'revoke', 'content-type': 'text/plain' });
      res.end('order placed');
    } else if (path === '/cookie') {
      res.writeHead(200, { 'set-cookie': 'cart=after-hold; Path=/' });
      res.end('cookie set');
    } else if (path === '/big') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(BIG);
    } else if (path === '/hang') {
      // Never answers.
    } else if (path === '/busy') {
      res.writeHead(503, { 'retry-after': '7', 'content-type': 'text/plain' });
      res.end('origin busy');
    } else {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`origin: ${req.method} ${req.url}`);
    }
  });
}

interface Running {
  server: StartedWithOrigin;
  origin: Origin;
  close(): Promise<void>;
}

/** The real server in front of a fresh recording origin. */
async function startGateway(env: Record<string, string> = {}, clock?: ManualClock): Promise<Running> {
  const origin = await startOrigin();
  try {
    const server = await startServer({ UPSTREAM: origin.url, ...env }, clock ? { clock } : {});
    return { server, origin, close: async () => (await server.close(), await origin.close()) };
  } catch (error) {
    await origin.close();
    throw error;
  }
}

interface Reply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly json: any;
  readonly page?: PageConfigJson;
}

const CONFIG = /<script id="waiting-room-config" type="application\/json">([\s\S]*?)<\/script>/;

function reply(status: number, headers: IncomingHttpHeaders, body: Buffer): Reply {
  const text = body.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const match = CONFIG.exec(text);
  return { status, headers, body, json, page: match ? (JSON.parse(match[1] ?? '') as PageConfigJson) : undefined };
}

/** A request through undici with exactly these headers and body (bytes allowed). */
async function send(url: string, method: string, headers: Record<string, string> = {}, body?: Buffer | string): Promise<Reply> {
  const response = await request(url, { method: method as 'GET', headers, body });
  return reply(response.statusCode, response.headers, Buffer.from(await response.body.arrayBuffer()));
}

/** A request through node:http: the target goes as written (`/x/../y`), and any header may be sent. */
function sendRaw(port: number, method: string, path: string, headers: OutgoingHttpHeaders = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(reply(res.statusCode ?? 0, res.headers, Buffer.concat(chunks))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Sends bytes as `visitor` (its cookies), keeping the cookies it is given. */
async function sendBytes(visitor: Visitor, method: string, path: string, bytes: Buffer, type: string): Promise<Reply> {
  const cookie = visitor.cookieHeader();
  const answer = await send(visitor.base + path, method, { 'content-type': type, ...(cookie ? { cookie } : {}) }, bytes);
  visitor.keepCookies(answer.headers['set-cookie']);
  return answer;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Releases the first in line through the admin API and checks it was `uuid`. */
async function release(server: StartedWithOrigin, uuid: string): Promise<void> {
  const answer = await admin(server, 'POST', 'release', { count: 1 });
  expect(answer.status).toBe(200);
  expect(((await answer.json()) as { released: string[] }).released).toEqual([uuid]);
}

/** The page's replay form for `page`. */
const replayForm = (page: PageConfigJson) => ({
  form: {
    uuid: page.queue.uuid,
    _token: page.csrfToken,
    ...(page.queue.method === 'POST' ? {} : { _method: page.queue.method }),
  },
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A room of ACTIVE_LIMIT=1 already taken by another session, so that the next visitor is held. */
const FULL = { ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' };

async function fillRoom(running: Running, path = '/checkout/occupied'): Promise<void> {
  const occupant = await new Visitor(running.server.url).get(path);
  expect(occupant.status).toBe(200);
  expect(occupant.page).toBeUndefined();
}

describe('gateway: streaming and headers of unprotected requests', () => {
  let running: Running;
  let url: string;

  beforeAll(async () => {
    running = await startGateway();
    url = running.server.url;
  });
  afterAll(() => running.close());

  it('should pass a GET on with its method, path and query untouched', async () => {
    const answer = await send(`${url}/shop/items?b=2&a=1&a=%20x&empty=`, 'GET');

    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe('origin: GET /shop/items?b=2&a=1&a=%20x&empty=');
    expect(running.origin.at('/shop/items')).toHaveLength(1);
  });

  it.each([
    ['application/json', Buffer.from('{ "a" :1,\n  "b": "é\\u00e9" }')],
    ['text/plain; charset=utf-8', Buffer.from('line one\r\nline two\n\tünïcode ✓ ')],
    ['application/x-www-form-urlencoded', Buffer.from('b=2&a=1&a=%20x&note=%3Cb%3E+%26')],
  ])('should pass a POST of %s on with its body bytes untouched', async (type, bytes) => {
    const path = `/shop/post-${running.origin.received.length}`;

    const answer = await send(`${url}${path}?q=1`, 'POST', { 'content-type': type }, bytes);

    expect(answer.status).toBe(200);
    const [received] = running.origin.at(path);
    expect(received?.method).toBe('POST');
    expect(received?.url).toBe(`${path}?q=1`);
    expect(received?.headers['content-type']).toBe(type);
    expect(received?.body.equals(bytes)).toBe(true);
  });

  it.each([201, 418])("should give the origin's %i back with its headers and every Set-Cookie", async (code) => {
    const answer = await send(`${url}/status/${code}`, 'GET');

    expect(answer.status).toBe(code);
    expect(answer.headers['x-origin-header']).toBe('kept as sent');
    expect(answer.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(answer.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; Path=/; HttpOnly']);
    expect(answer.body.toString()).toBe(`status ${code}`);
  });

  it('should not forward hop-by-hop headers, nor those the Connection header names', async () => {
    const answer = await sendRaw(running.server.port, 'GET', '/shop/hop', {
      Connection: 'close, X-Secret',
      'X-Secret': 'for this hop only',
      'Keep-Alive': 'timeout=5',
      TE: 'trailers',
      'Proxy-Authorization': 'Basic Zm9vOmJhcg==',
      'X-Kept': 'end to end',
    });

    expect(answer.status).toBe(200);
    const headers = running.origin.at('/shop/hop')[0]?.headers ?? {};
    expect(headers['x-kept']).toBe('end to end');
    expect(headers).not.toHaveProperty('x-secret');
    expect(headers).not.toHaveProperty('keep-alive');
    expect(headers).not.toHaveProperty('te');
    expect(headers).not.toHaveProperty('proxy-authorization');
    expect(String(headers.connection ?? '')).not.toMatch(/x-secret/i);
  });

  it("should not pass the origin's hop-by-hop answer headers back", async () => {
    const answer = await send(`${url}/hop`, 'GET');

    expect(answer.status).toBe(200);
    expect(answer.headers['x-kept']).toBe('end to end');
    expect(answer.headers).not.toHaveProperty('x-hop');
    expect(String(answer.headers['keep-alive'] ?? '')).not.toBe('timeout=77');
  });

  it("should say who asked and how, in its own forwarding headers, not the client's", async () => {
    await send(`${url}/shop/forwarded`, 'GET', {
      host: 'shop.example:8443',
      'x-forwarded-for': '6.6.6.6',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'evil.example',
      forwarded: 'for=6.6.6.6',
      'x-real-ip': '6.6.6.6',
    });

    const headers = running.origin.at('/shop/forwarded')[0]?.headers ?? {};
    expect(headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(headers['x-forwarded-proto']).toBe('http');
    expect(headers['x-forwarded-host']).toBe('shop.example:8443');
    expect(headers).not.toHaveProperty('forwarded');
    expect(headers).not.toHaveProperty('x-real-ip');
  });

  it('should pass on no header that claims who asked or how they came, nor any that reroutes the request', async () => {
    const sent = Object.fromEntries(
      [...CLIENT_CLAIMS, ...ROUTING_OVERRIDES].map((name) => [name, name.endsWith('url') || name.endsWith('uri') ? '/checkout' : '6.6.6.6']),
    );

    await send(`${url}/shop/claims`, 'GET', { ...sent, 'x-site-header': 'kept' });

    const headers = running.origin.at('/shop/claims')[0]?.headers ?? {};
    expect(headers['x-site-header']).toBe('kept');
    expect(Object.keys(headers).filter((name) => name in sent)).toEqual([]);
    // docs/security.md lists them all.
    const documented = readFileSync(path.join(__dirname, '../../docs/security.md'), 'utf8').toLowerCase();
    expect(Object.keys(sent).filter((name) => !documented.includes(`\`${name}\``))).toEqual([]);
  });

  it('should pass on no dropped header spelt with underscores, which a CGI or WSGI origin reads as the dashed one', async () => {
    const sent = {
      X_Real_IP: '6.6.6.6',
      X_Forwarded_For: '6.6.6.6',
      X_Original_URL: '/checkout',
      Waiting_Room_Pass: 'forged',
      Waiting_Room_Bypass: 'forged',
      'x-forwarded_host': 'evil.example',
      X_Envoy_Internal: 'true',
      'x-custom_header': 'kept',
    };

    await send(`${url}/shop/underscores`, 'GET', sent);

    const headers = running.origin.at('/shop/underscores')[0]?.headers ?? {};
    expect(headers['x-custom_header']).toBe('kept');
    expect(Object.keys(headers).filter((name) => name.includes('_') && name !== 'x-custom_header')).toEqual([]);
  });

  it('should pass on no header of a family proxies trust: x-envoy-*, x-forwarded-*', async () => {
    await send(`${url}/shop/families`, 'GET', { 'x-envoy-original-path': '/checkout', 'x-envoy-internal': 'true', 'x-forwarded-anything': '6.6.6.6' });

    const headers = running.origin.at('/shop/families')[0]?.headers ?? {};
    expect(Object.keys(headers).filter((name) => name.startsWith('x-envoy-') || name === 'x-forwarded-anything')).toEqual([]);
  });

  it('should hide the waiting room session cookie from the origin and pass the origin its own', async () => {
    const ada = new Visitor(url);
    await ada.get('/checkout/admitted');
    expect(ada.cookie).toMatch(new RegExp(`^${SESSION_COOKIE}=.+`));
    ada.originCookies.set('shop', 'shop=abc');
    ada.originCookies.set('theme', 'theme=dark');

    await ada.get('/shop/cookies');
    await ada.get('/checkout/cookies');

    expect(running.origin.at('/shop/cookies')[0]?.headers.cookie).toBe('shop=abc; theme=dark');
    expect(running.origin.at('/checkout/cookies')[0]?.headers.cookie).toBe('shop=abc; theme=dark');
    for (const one of running.origin.received) expect(String(one.headers.cookie ?? '')).not.toContain(SESSION_COOKIE);
  });

  it('should stream a body of a few MB of random bytes to the origin, byte for byte', async () => {
    const bytes = randomBytes(4 * 1024 * 1024 + 3);

    const answer = await send(`${url}/upload`, 'POST', { 'content-type': 'application/octet-stream' }, bytes);

    expect(answer.status).toBe(200);
    const received = running.origin.at('/upload')[0];
    expect(received?.body.length).toBe(bytes.length);
    expect(sha256(received?.body ?? Buffer.alloc(0))).toBe(sha256(bytes));
  });

  it("should stream the origin's answer of a few MB back, byte for byte", async () => {
    const answer = await send(`${url}/big`, 'GET');

    expect(answer.status).toBe(200);
    expect(answer.body.length).toBe(BIG.length);
    expect(sha256(answer.body)).toBe(sha256(BIG));
  });
});

describe('gateway: the log of forwarded requests', () => {
  /** Log lines, as the server writes them. */
  const logLines = () => {
    const lines: string[] = [];
    return { lines, write: (line: string) => void lines.push(line) };
  };

  it('should forward requests without a log line at the default level, and log them at debug', async () => {
    const written: Record<string, string> = {};
    for (const level of ['info', 'debug']) {
      const log = logLines();
      const origin = await startOrigin();
      const server = await startServer({ UPSTREAM: origin.url, LOG_LEVEL: level }, { logStream: log });
      try {
        const before = log.lines.length;
        for (const path of ['/shop/logged-1', '/shop/logged-2']) expect((await send(`${server.url}${path}`, 'GET')).status).toBe(200);
        written[level] = log.lines.slice(before).join('');
      } finally {
        await server.close();
        await origin.close();
      }
    }

    expect(written.info).toBe('');
    expect(written.debug).toContain('/shop/logged-1');
    expect(written.debug).toContain('/shop/logged-2');
  });
});

describe('gateway: a proxy in front that is not trusted', () => {
  it('should warn once, at the first request with X-Forwarded-For, that TRUST_PROXY is off', async () => {
    const lines: string[] = [];
    const origin = await startOrigin();
    const server = await startServer({ UPSTREAM: origin.url, LOG_LEVEL: 'info' }, { logStream: { write: (line: string) => void lines.push(line) } });
    const trusted = await startServer(
      { UPSTREAM: origin.url, LOG_LEVEL: 'info', TRUST_PROXY: 'true' },
      { logStream: { write: (line: string) => void lines.push(`trusted ${line}`) } },
    );
    try {
      await send(`${server.url}/shop/direct`, 'GET');
      expect(lines.filter((line) => line.includes('TRUST_PROXY is off'))).toEqual([]);
      for (const at of [server.url, server.url, trusted.url]) await send(`${at}/shop/proxied`, 'GET', { 'x-forwarded-for': '203.0.113.7' });

      const warnings = lines.filter((line) => line.includes('TRUST_PROXY is off'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).not.toMatch(/^trusted /);
      expect(JSON.parse(warnings[0])).toMatchObject({ level: 40, msg: expect.stringContaining('set TRUST_PROXY=true') });
    } finally {
      await server.close();
      await trusted.close();
      await origin.close();
    }
  });
});

describe('gateway: forwarding headers with TRUST_PROXY', () => {
  let running: Running;

  beforeAll(async () => {
    running = await startGateway({ TRUST_PROXY: 'true' });
  });
  afterAll(() => running.close());

  it("should extend the trusted proxy's X-Forwarded-For chain", async () => {
    await send(`${running.server.url}/shop/trusted`, 'GET', { 'x-forwarded-for': '6.6.6.6' });

    expect(running.origin.at('/shop/trusted')[0]?.headers['x-forwarded-for']).toBe('6.6.6.6, 127.0.0.1');
  });

  it("should pass the trusted proxy's other forwarding headers, never one that reroutes the request", async () => {
    const claims = Object.fromEntries(CLIENT_CLAIMS.map((name) => [name, `set by the proxy: ${name}`]));
    const overrides = Object.fromEntries(ROUTING_OVERRIDES.map((name) => [name, '/checkout']));

    await send(`${running.server.url}/shop/proxied`, 'GET', { ...claims, ...overrides });

    const headers = running.origin.at('/shop/proxied')[0]?.headers ?? {};
    for (const name of CLIENT_CLAIMS) expect([name, headers[name]]).toEqual([name, claims[name]]);
    expect(Object.keys(headers).filter((name) => name in overrides)).toEqual([]);
  });

  it('should pass no underscore spelling of a claim, which the proxy in front would not clear', async () => {
    await send(`${running.server.url}/shop/proxied-underscores`, 'GET', { X_Real_IP: '6.6.6.6', 'x-real-ip': '1.2.3.4', Forwarded_For: '6.6.6.6' });

    const headers = running.origin.at('/shop/proxied-underscores')[0]?.headers ?? {};
    expect(headers['x-real-ip']).toBe('1.2.3.4');
    expect(Object.keys(headers).filter((name) => name.includes('_'))).toEqual([]);
  });
});

describe('gateway: a held request is replayed exactly once', () => {
  let running: Running;

  beforeEach(async () => {
    running = await startGateway(FULL, new ManualClock());
    await fillRoom(running);
  });
  afterEach(() => running.close());

  /** Replays twice: the origin gets the held request once, the second replay a 409. */
  async function replayTwice(ada: Visitor, page: PageConfigJson, path: string): Promise<Received> {
    await release(running.server, page.queue.uuid);

    const first = await ada.post(page.queue.uri, replayForm(page));
    const second = await ada.post(page.queue.uri, replayForm(page));

    expect(first.status).toBe(200);
    expect(second.status).toBe(409);
    expect(second.json.error.code).toBe('already_replayed');
    const received = running.origin.at(path);
    expect(received).toHaveLength(1);
    return received[0];
  }

  it('should replay a held form POST with its path, query, type and body', async () => {
    const ada = new Visitor(running.server.url);
    const page = await ada.hold('/checkout/pay?item=42&x=%20y', { form: { quantity: '3', note: '<b>gift</b> & "card"' } });
    expect(running.origin.at('/checkout/pay')).toHaveLength(0);

    const received = await replayTwice(ada, page, '/checkout/pay');

    expect(received.method).toBe('POST');
    expect(received.url).toBe('/checkout/pay?item=42&x=%20y');
    expect(received.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(received.body.toString()).toBe(new URLSearchParams({ quantity: '3', note: '<b>gift</b> & "card"' }).toString());
  });

  it('should replay a held PUT with its JSON body through the form with _method=PUT', async () => {
    const ada = new Visitor(running.server.url);
    const held = await ada.send('PUT', '/checkout/cart?id=7', { json: { quantity: 5, note: 'é' } });
    const page = held.page as PageConfigJson;
    expect(page.queue.method).toBe('PUT');

    const received = await replayTwice(ada, page, '/checkout/cart');

    expect(received.method).toBe('PUT');
    expect(received.url).toBe('/checkout/cart?id=7');
    expect(received.headers['content-type']).toBe('application/json');
    expect(received.body.equals(Buffer.from(JSON.stringify({ quantity: 5, note: 'é' })))).toBe(true);
  });

  it('should replay a held text/plain body as it came', async () => {
    const ada = new Visitor(running.server.url);
    const text = 'line one\r\nline two ✓\n';
    const page = await ada.hold('/checkout/note', { raw: text, type: 'text/plain; charset=utf-8' });

    const received = await replayTwice(ada, page, '/checkout/note');

    expect(received.method).toBe('POST');
    expect(received.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(received.body.equals(Buffer.from(text))).toBe(true);
  });

  it('should replay a held binary body that is not UTF-8, byte for byte', async () => {
    const ada = new Visitor(running.server.url);
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0xed, 0xa0, 0x80]), randomBytes(1000)]);
    const held = await sendBytes(ada, 'POST', '/checkout/upload', bytes, 'application/octet-stream');
    expect(held.page?.queue.method).toBe('POST');

    const received = await replayTwice(ada, held.page as PageConfigJson, '/checkout/upload');

    expect(received.method).toBe('POST');
    expect(received.headers['content-type']).toBe('application/octet-stream');
    expect(received.body.equals(bytes)).toBe(true);
  });

  it("should replay with the visitor's origin cookies of the moment, never the waiting room's", async () => {
    const ada = new Visitor(running.server.url);
    ada.originCookies.set('old', 'old=1');
    const page = await ada.hold('/checkout/pay', { form: { quantity: '1' } });
    ada.originCookies.delete('old');
    expect((await ada.get('/cookie')).status).toBe(200);
    expect(ada.originCookies.get('cart')).toBe('cart=after-hold');

    const received = await replayTwice(ada, page, '/checkout/pay');

    expect(received.headers.cookie).toBe('cart=after-hold');
  });
});

/** What a browser sends with a form another site's page submits to us: never our SameSite=Lax cookie. */
const CROSS_SITE_FORM = {
  'sec-fetch-site': 'cross-site',
  'sec-fetch-mode': 'navigate',
  'sec-fetch-dest': 'document',
  origin: 'http://evil.example',
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
};
/** What a browser sends when a link on another site is followed: our cookie goes with it. */
const CROSS_SITE_LINK = {
  'sec-fetch-site': 'cross-site',
  'sec-fetch-mode': 'navigate',
  'sec-fetch-dest': 'document',
  'sec-fetch-user': '?1',
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
};

describe('gateway: a request another site sent never takes over a visitor’s place', () => {
  let running: Running;

  beforeEach(async () => {
    running = await startGateway(FULL, new ManualClock());
    await fillRoom(running);
  });
  afterEach(() => running.close());

  const setsSession = (answer: { headers: IncomingHttpHeaders | Headers }) => {
    const raw = answer.headers instanceof Headers ? answer.headers.get('set-cookie') : answer.headers['set-cookie'];
    return ([] as string[]).concat(raw ?? []).some((cookie) => cookie.startsWith(`${SESSION_COOKIE}=`));
  };

  /** Ada's POST held; what the origin gets when she is released and her page replays it. */
  async function heldOrder(): Promise<{ ada: Visitor; page: PageConfigJson }> {
    const ada = new Visitor(running.server.url);
    const page = await ada.hold('/checkout/order', { form: { item: 'shoes' } });
    return { ada, page };
  }

  async function releaseAndReplay(ada: Visitor, page: PageConfigJson): Promise<void> {
    await release(running.server, page.queue.uuid);
    const replay = await ada.post(page.queue.uri, replayForm(page));
    expect(replay.status).toBe(200);
    const orders = running.origin.at('/checkout/order');
    expect(orders.map((one) => [one.method, one.body.toString()])).toEqual([['POST', 'item=shoes']]);
  }

  it('should answer a cross-site POST, sent without the session cookie, 403 with no cookie and no place', async () => {
    const { ada, page } = await heldOrder();
    const waiting = (await stats(running.server)).waiting;

    const attack = await send(
      `${running.server.url}/checkout/order`,
      'POST',
      { ...CROSS_SITE_FORM, 'content-type': 'application/x-www-form-urlencoded' },
      'item=nothing',
    );

    expect(attack.status).toBe(403);
    expect(attack.body.toString()).toContain('A page on another site sent this request');
    expect(setsSession(attack)).toBe(false);
    expect((await stats(running.server)).waiting).toBe(waiting);
    await releaseAndReplay(ada, page);
  });

  it('should answer a cross-site fetch without the session cookie 403 in JSON, with no cookie', async () => {
    const attack = await send(
      `${running.server.url}/checkout/order`,
      'POST',
      {
        'sec-fetch-site': 'cross-site',
        'sec-fetch-mode': 'no-cors',
        'sec-fetch-dest': 'empty',
        origin: 'http://evil.example',
        'content-type': 'text/plain',
      },
      'x',
    );

    expect([attack.status, attack.json]).toEqual([403, { error: { code: 'cross_site_request', message: expect.any(String) } }]);
    expect(setsSession(attack)).toBe(false);
  });

  it('should show a visitor led here by a cross-site link their own place, keeping their held POST', async () => {
    const { ada, page } = await heldOrder();

    const followed = await ada.get('/checkout?attacker=1', CROSS_SITE_LINK);

    expect(followed.status).toBe(200);
    expect(setsSession({ headers: followed.headers })).toBe(false);
    expect(followed.page?.queue).toMatchObject({ uuid: page.queue.uuid, uri: '/checkout/order', method: 'POST' });
    await releaseAndReplay(ada, page);
  });

  it("should keep a visitor's held POST when a sibling subdomain (same site, another origin) posts with their cookie", async () => {
    const { ada, page } = await heldOrder();

    // shop.example's page on evil.shop.example: the browser sends the Lax cookie with it.
    const sibling = await ada.post(
      '/checkout/order',
      { form: { item: 'nothing' } },
      { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', origin: 'http://evil.shop.example' },
    );
    // An old browser says nothing of the site, but its Origin is another host's.
    const oldBrowser = await ada.post('/checkout/order', { form: { item: 'nothing' } }, { origin: 'http://evil.shop.example' });

    expect(sibling.page?.queue).toMatchObject({ uuid: page.queue.uuid, uri: '/checkout/order', method: 'POST' });
    expect(oldBrowser.page?.queue).toMatchObject({ uuid: page.queue.uuid, uri: '/checkout/order', method: 'POST' });
    await releaseAndReplay(ada, page);
  });

  it('should let the visitor replace their held request from the site itself, or from a client without fetch metadata', async () => {
    const { ada } = await heldOrder();

    const sameOrigin = await ada.post(
      '/checkout/order',
      { form: { item: 'boots' } },
      { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', origin: running.server.url },
    );
    expect(sameOrigin.page?.queue).toMatchObject({ uri: '/checkout/order', method: 'POST' });
    const program = await ada.get('/checkout/basket');

    expect(program.page?.queue).toMatchObject({ uri: '/checkout/basket', method: 'GET' });
  });

  it('should still give a place, and a session, to a new visitor who follows a link from another site', async () => {
    const bea = new Visitor(running.server.url);

    const followed = await bea.get('/checkout?from=newsletter', CROSS_SITE_LINK);

    expect(followed.status).toBe(200);
    expect(bea.cookie).toMatch(new RegExp(`^${SESSION_COOKIE}=.+`));
    expect(followed.page?.queue).toMatchObject({ uri: '/checkout?from=newsletter', method: 'GET' });
  });

  it('should take no place for a cross-site frame, which comes without the session cookie', async () => {
    const waiting = (await stats(running.server)).waiting;

    const framed = await send(`${running.server.url}/checkout`, 'GET', { ...CROSS_SITE_LINK, 'sec-fetch-dest': 'iframe' });

    expect(framed.status).toBe(403);
    expect(setsSession(framed)).toBe(false);
    expect((await stats(running.server)).waiting).toBe(waiting);
  });
});

describe('gateway: a request another site sent while the room has room', () => {
  let running: Running;

  beforeEach(async () => {
    running = await startGateway();
  });
  afterEach(() => running.close());

  it('should let a cross-site POST without the session cookie through, setting no cookie', async () => {
    const answer = await send(`${running.server.url}/checkout/pay`, 'POST', { ...CROSS_SITE_FORM, 'content-type': 'application/x-www-form-urlencoded' }, 'a=1');

    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe('origin: POST /checkout/pay');
    expect(answer.headers['set-cookie']).toBeUndefined();
  });

  it('should start no session when the origin names a user in its answer to a cross-site POST without the cookie', async () => {
    const answer = await send(`${running.server.url}/sign-in`, 'POST', { ...CROSS_SITE_FORM, 'content-type': 'application/x-www-form-urlencoded' }, 'a=1');
    const sameSite = await send(
      `${running.server.url}/sign-in`,
      'POST',
      { 'sec-fetch-site': 'same-origin', 'content-type': 'application/x-www-form-urlencoded' },
      'a=1',
    );

    expect(answer.status).toBe(200);
    expect(answer.headers['set-cookie']).toBeUndefined();
    expect(String(sameSite.headers['set-cookie'])).toContain(`${SESSION_COOKIE}=`);
  });
});

describe('gateway: replay of a request another site sent', () => {
  let running: Running;

  beforeEach(async () => {
    running = await startGateway(FULL, new ManualClock());
    await fillRoom(running);
  });
  afterEach(() => running.close());

  /**
   * Holds a form POST sent with `headers` by a browser that sends the session cookie across sites
   * anyway (one that ignores SameSite), from a session with no place yet (signed in at the site);
   * releases and replays it; what the origin received.
   */
  async function heldAndReplayed(headers: Record<string, string>): Promise<Received> {
    const ada = new Visitor(running.server.url);
    expect((await ada.post('/sign-in')).status).toBe(200);
    expect(ada.cookie).not.toBe('');
    ada.originCookies.set('sid', 'sid=origin-session');
    const held = await ada.post('/checkout/transfer', { form: { amount: '100' } }, headers);
    const page = held.page as PageConfigJson;
    await release(running.server, page.queue.uuid);

    const replay = await ada.post(page.queue.uri, replayForm(page));

    expect(replay.status).toBe(200);
    const received = running.origin.at('/checkout/transfer');
    expect(received).toHaveLength(1);
    expect(received[0]?.body.toString()).toBe('amount=100');
    return received[0];
  }

  it('should replay a POST sent with Sec-Fetch-Site: cross-site without any cookie', async () => {
    const received = await heldAndReplayed({ 'sec-fetch-site': 'cross-site' });

    expect(received.headers).not.toHaveProperty('cookie');
  });

  it('should replay a POST from another Origin (no Sec-Fetch-Site) without any cookie', async () => {
    const received = await heldAndReplayed({ origin: 'https://evil.example' });

    expect(received.headers).not.toHaveProperty('cookie');
  });

  it('should replay a same-origin POST with the origin cookies', async () => {
    const received = await heldAndReplayed({ 'sec-fetch-site': 'same-origin' });

    expect(received.headers.cookie).toBe('sid=origin-session');
  });
});

describe('gateway: API clients, browsers and subresources while the room is full', () => {
  let running: Running;

  beforeEach(async () => {
    running = await startGateway(FULL, new ManualClock());
    await fillRoom(running);
  });
  afterEach(() => running.close());

  it('should answer an API client 503 with Retry-After and the page config, then let its retry through once released', async () => {
    const held = await send(`${running.server.url}/checkout/api?id=1`, 'GET', { accept: 'application/json' });

    expect(held.status).toBe(503);
    expect(held.headers['waiting-room']).toBe('held');
    expect(held.headers['content-type']).toMatch(/^application\/json/);
    expect(held.headers['cache-control']).toBe('no-store');
    expect(String(held.headers['retry-after'])).toMatch(/^\d+$/);
    expect(Number(held.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const setCookie = ([] as string[]).concat(held.headers['set-cookie'] ?? []);
    const cookie = setCookie.find((one) => one.startsWith(`${SESSION_COOKIE}=`))?.split(';')[0];
    expect(cookie).toBeDefined();
    expect(held.json).toMatchObject({
      queue: { uuid: expect.stringMatching(/^[0-9a-f-]{36}$/), uri: '/checkout/api?id=1', method: 'GET' },
      csrfToken: expect.any(String),
      routes: { queue_request: '/queue/request', queue_info: '/queue/info/{uuid}' },
      realtime: { key: 'waiting-room-key', port: running.server.port },
    });
    expect(held.json.queue.position).toBeGreaterThanOrEqual(1);
    // The very config a browser of the same session gets in its waiting page.
    const asPage = await send(`${running.server.url}/checkout/api?id=1`, 'GET', {
      cookie: cookie as string,
      accept: 'text/html',
      'sec-fetch-mode': 'navigate',
    });
    expect(held.json).toEqual(asPage.page);
    expect(running.origin.at('/checkout/api')).toHaveLength(0);

    await release(running.server, held.json.queue.uuid);
    const retry = await send(`${running.server.url}/checkout/api?id=1`, 'GET', { accept: 'application/json', cookie: cookie as string });

    expect(retry.status).toBe(200);
    expect(retry.body.toString()).toBe('origin: GET /checkout/api?id=1');
    expect(running.origin.at('/checkout/api')).toHaveLength(1);
  });

  it('should take a fetch (Sec-Fetch-Mode: cors) for an API client', async () => {
    const answer = await fetch(`${running.server.url}/checkout/fetched`);

    expect(answer.status).toBe(503);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await answer.json()) as PageConfigJson).queue.uri).toBe('/checkout/fetched');
  });

  it("should give a browser's navigation the HTML waiting page", async () => {
    const answer = await send(`${running.server.url}/checkout/page`, 'GET', {
      accept: 'text/html,application/xhtml+xml,*/*;q=0.8',
      'sec-fetch-mode': 'navigate',
      'sec-fetch-dest': 'document',
    });

    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/html/);
    expect(answer.page?.queue).toMatchObject({ uri: '/checkout/page', method: 'GET', position: 1 });
  });

  it('should answer an image 503 without taking a place nor replacing the held request', async () => {
    const ada = new Visitor(running.server.url);
    const page = await ada.hold('/checkout/pay', { form: { quantity: '2' } });
    const image = { 'sec-fetch-dest': 'image', 'sec-fetch-mode': 'no-cors', accept: 'image/*' };

    const ofWaiting = await ada.get('/checkout/logo.png', image);
    const ofStranger = await new Visitor(running.server.url).get('/checkout/logo.png', image);

    for (const answer of [ofWaiting, ofStranger]) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(await stats(running.server)).toMatchObject({ waiting: 1 });
    expect((await ada.queueInfo(page.queue.uuid)).json.position).toBe(1);
    // The held POST is still the one replayed: had the image replaced it, this would be refused.
    await release(running.server, page.queue.uuid);
    const replay = await ada.post(page.queue.uri, replayForm(page));
    expect(replay.status).toBe(200);
    expect(running.origin.at('/checkout/pay').map((one) => [one.method, one.body.toString()])).toEqual([['POST', 'quantity=2']]);
    expect(running.origin.at('/checkout/logo.png')).toHaveLength(0);
  });
});

describe("gateway: the origin's command to end a session (Waiting-Room-Command: revoke)", () => {
  let running: Running;
  beforeEach(async () => {
    running = await startGateway(FULL, new ManualClock());
  });
  afterEach(() => running.close());

  const revokedCount = async () => {
    const text = await (await fetch(`${running.server.url}/metrics`, { headers: { authorization: `Bearer ${running.server.adminToken}` } })).text();
    return Number(/^waiting_room_revoked_total\{room="default"\} (\d+)$/m.exec(text)?.[1]);
  };

  it.each(['/checkout/done', '/thanks'])(
    "should free an admitted visitor's slot at once when the origin answers %s with revoke, the header kept from the visitor",
    async (path) => {
      const buyer = new Visitor(running.server.url);
      expect((await buyer.get('/checkout/cart')).status).toBe(200);
      const next = new Visitor(running.server.url);
      expect((await next.get('/checkout/cart')).page?.queue.position).toBe(1);
      expect(await stats(running.server)).toMatchObject({ active: 1, waiting: 1 });
      expect(await revokedCount()).toBe(0);

      const done = await buyer.get(path);

      expect(done.status).toBe(200);
      expect(done.text).toBe('order placed');
      expect(done.headers.get('waiting-room-command')).toBeNull();
      expect(await stats(running.server)).toMatchObject({ active: 0, waiting: 1 });
      expect(await revokedCount()).toBe(1);
      // The buyer's next protected request waits behind the one who was waiting.
      expect((await buyer.get('/checkout/cart')).page?.queue.position).toBe(2);
    },
  );

  it('should keep the slot for PASS_REVOCATION_SECONDS when passes are signed, and list the revocation in the feed', async () => {
    const clock = new ManualClock();
    await running.close();
    running = await startGateway({ ...FULL, PASS_SECRET: 'a-pass-secret-for-the-gateway-tests-01234', PASS_REVOCATION_SECONDS: '3' }, clock);
    const buyer = new Visitor(running.server.url);
    expect((await buyer.get('/checkout/cart')).status).toBe(200);
    expect((await buyer.get('/checkout/done')).text).toBe('order placed');
    // A connector may hold a pass of the session: the slot counts until the bound has passed.
    expect(await stats(running.server)).toMatchObject({ active: 1 });
    const token = await signFeedToken('default', 'a-pass-secret-for-the-gateway-tests-01234', clock.now());
    const feed = await fetch(`${running.server.url}/queue/passes/revoked?room=default`, { headers: { authorization: `Bearer ${token}` } });
    const read = (await feed.json()) as { revoked: unknown[]; cursor: string };
    expect(read.revoked).toHaveLength(1);
    // A room split across shards answers one cursor a part, joined: the feed takes it back.
    const parted = Array.from({ length: 8 }, () => read.cursor).join('~');
    const again = await fetch(`${running.server.url}/queue/passes/revoked?room=default&since=${encodeURIComponent(parted)}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(again.status).toBe(200);
    await clock.advance(3000);
    expect(await stats(running.server)).toMatchObject({ active: 0 });
  });

  it('should change nothing for a visitor who waits, nor count it', async () => {
    expect((await new Visitor(running.server.url).get('/checkout/cart')).status).toBe(200);
    const waiting = new Visitor(running.server.url);
    expect((await waiting.get('/checkout/cart')).page?.queue.position).toBe(1);

    const thanks = await waiting.get('/thanks');

    expect(thanks.headers.get('waiting-room-command')).toBeNull();
    expect(await stats(running.server)).toMatchObject({ active: 1, waiting: 1 });
    expect((await waiting.get('/checkout/cart')).page?.queue.position).toBe(1);
    expect(await revokedCount()).toBe(0);
  });
});

describe('gateway: the status a held API client is answered with (QUEUEING_STATUS_CODE)', () => {
  let running: Running | undefined;
  afterEach(() => running?.close());

  /** What an API client gets from `path` once the room of `path` is full. */
  async function heldAnswer(env: Record<string, string>, path: string): Promise<Reply> {
    running = await startGateway(env, new ManualClock());
    await fillRoom(running, `${path}/occupied`);
    return send(`${running.server.url}${path}/api`, 'GET', { accept: 'application/json' });
  }

  it.each([200, 202, 429])('should answer %i, with the same body, Retry-After and the held header, when configured', async (code) => {
    const held = await heldAnswer({ ...FULL, QUEUEING_STATUS_CODE: String(code) }, '/checkout');

    expect(held.status).toBe(code);
    expect(held.headers['waiting-room']).toBe('held');
    expect(Number(held.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(held.json).toMatchObject({ queue: { uri: '/checkout/api', method: 'GET', position: 1 } });
    expect(running?.origin.at('/checkout/api')).toHaveLength(0);
  });

  it("should take a room's own queueingStatusCode over the default", async () => {
    const rooms = [
      { name: 'shop', protect: ['/checkout'], activeLimit: 1, releasePerMinute: 0, queueingStatusCode: 429 },
      { name: 'tickets', protect: ['/tickets'], activeLimit: 1, releasePerMinute: 0 },
    ];
    const env = { ROOMS: JSON.stringify(rooms), QUEUEING_STATUS_CODE: '202' };
    const shop = await heldAnswer(env, '/checkout');
    expect(shop.status).toBe(429);
    await running?.close();
    running = undefined;

    const tickets = await heldAnswer(env, '/tickets');
    expect(tickets.status).toBe(202);
    expect(tickets.headers['waiting-room']).toBe('held');
  });
});

describe('gateway: an origin that cannot be reached', () => {
  let server: StartedWithOrigin;

  beforeAll(async () => {
    server = await startServer(
      { ...FULL, UPSTREAM: `http://127.0.0.1:${await closedPort()}`, UPSTREAM_CONNECT_TIMEOUT_MS: '1000' },
      { clock: new ManualClock() },
    );
  });
  afterAll(() => server.close());

  it('should answer 502 origin_unreachable, JSON or a page, and keep every place in line', async () => {
    const occupant = new Visitor(server.url);
    const admitted = await occupant.get('/checkout/occupied');
    const ada = new Visitor(server.url);
    const page = await ada.hold('/checkout/pay');
    const before = await stats(server);
    expect(before).toMatchObject({ waiting: 1, active: 1 });

    const unprotected = await send(`${server.url}/shop`, 'GET', { accept: 'application/json' });
    const protectedAsPage = await occupant.get('/checkout/again', { accept: 'text/html' });

    for (const answer of [admitted, unprotected]) {
      expect(answer.status).toBe(502);
      expect(answer.json).toEqual({ error: { code: 'origin_unreachable', message: expect.any(String) } });
    }
    expect(protectedAsPage.status).toBe(502);
    expect(protectedAsPage.headers.get('content-type')).toMatch(/^text\/html/);
    expect(protectedAsPage.text).toMatch(/^<!doctype html>/);
    expect(protectedAsPage.json).toBeUndefined();
    const info = await ada.queueInfo(page.queue.uuid);
    expect(info.status).toBe(200);
    expect(info.json.position).toBe(1);
    expect(await stats(server)).toMatchObject({ waiting: 1, active: 1 });
  });
});

describe('gateway: an origin in trouble', () => {
  let running: Running;

  beforeAll(async () => {
    running = await startGateway({ UPSTREAM_TIMEOUT_MS: '300' });
  });
  afterAll(() => running.close());

  it('should answer 504 origin_timeout when the origin does not answer in time', async () => {
    const started = Date.now();

    const answer = await send(`${running.server.url}/hang`, 'GET', { accept: 'application/json' });

    expect(answer.status).toBe(504);
    expect(answer.json.error.code).toBe('origin_timeout');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(running.origin.at('/hang')).toHaveLength(1);
  });

  it("should give the origin's 503 with its Retry-After to the visitor once, retrying nothing", async () => {
    const answer = await send(`${running.server.url}/busy`, 'GET');
    await new Promise((resolve) => setTimeout(resolve, 200));

    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('7');
    expect(answer.body.toString()).toBe('origin busy');
    expect(running.origin.at('/busy')).toHaveLength(1);
  });
});

describe('gateway: BYPASS prefixes', () => {
  let running: Running;

  beforeAll(async () => {
    running = await startGateway({ ...FULL, PROTECT: '/', BYPASS: '/health' });
    await fillRoom(running, '/occupied');
  });
  afterAll(() => running.close());

  it('should pass /health to the origin and hold /other', async () => {
    const health = await send(`${running.server.url}/health`, 'GET');
    const other = await send(`${running.server.url}/other`, 'GET');

    expect(health.status).toBe(200);
    expect(health.body.toString()).toBe('origin: GET /health');
    expect(other.page?.queue.uri).toBe('/other');
    expect(running.origin.at('/other')).toHaveLength(0);
  });

  it.each([
    ['/x/../health', '/health'],
    ['/./health', '/health'],
    ['//health', '/health'],
    ['/HEALTH', '/HEALTH'],
    ['/health/deep', '/health/deep'],
  ])('should read %s as %s, under the bypass', async (sent, forwarded) => {
    const answer = await sendRaw(running.server.port, 'GET', sent);

    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe(`origin: GET ${forwarded}`);
  });

  it.each([['/health/../other'], ['/healthz'], ['/x/../other']])('should hold %s like the path it normalizes to', async (sent) => {
    const before = running.origin.received.length;

    const answer = await sendRaw(running.server.port, 'GET', sent);

    expect(answer.page).toBeDefined();
    expect(running.origin.received.length).toBe(before);
  });

  it('should not forward /health/..;/other, which a servlet container reads as /other', async () => {
    const before = running.origin.received.length;

    const answer = await sendRaw(running.server.port, 'GET', '/health/..;/other');

    expect(answer.status === 400 || answer.page !== undefined).toBe(true);
    expect(running.origin.received.length).toBe(before);
  });
});

describe('gateway: the signed bypass', () => {
  const SECRET = 'a-bypass-secret-of-more-than-32-characters';
  let running: Running;

  beforeAll(async () => {
    running = await startGateway({ ...FULL, BYPASS_SECRET: SECRET });
    await fillRoom(running);
  });
  afterAll(() => running.close());

  it('should pass a valid token while the room is full, without forwarding the header or taking a place', async () => {
    const answer = await send(`${running.server.url}/checkout/monitor`, 'GET', {
      'waiting-room-bypass': bypassToken(SECRET, Date.now() + 60_000),
    });

    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe('origin: GET /checkout/monitor');
    expect(running.origin.at('/checkout/monitor')[0]?.headers).not.toHaveProperty('waiting-room-bypass');
    expect(await stats(running.server)).toMatchObject({ waiting: 0 });
  });

  it.each([
    ['expired', () => bypassToken(SECRET, Date.now() - 1000)],
    ['signed with another secret', () => bypassToken('another-secret-of-more-than-32-characters', Date.now() + 60_000)],
    ['two years ahead', () => bypassToken(SECRET, Date.now() + 2 * 365 * 24 * 3600 * 1000)],
    ['garbage', () => 'v1.garbage'],
  ])('should hold a request with a token %s like anyone', async (_name, token) => {
    const path = `/checkout/held-${running.origin.received.length}`;

    const answer = await send(`${running.server.url}${path}`, 'GET', { 'waiting-room-bypass': token() });

    expect(answer.page?.queue.uri).toBe(path);
    expect(running.origin.at(path)).toHaveLength(0);
  });
});

describe('gateway: held bodies are bounded', () => {
  let running: Running;

  beforeEach(async () => {
    running = await startGateway({ ...FULL, HELD_BODY_LIMIT: '2048' }, new ManualClock());
    await fillRoom(running);
  });
  afterEach(() => running.close());

  it('should answer 413 to a protected POST above the limit, and take no place', async () => {
    const answer = await sendBytes(new Visitor(running.server.url), 'POST', '/checkout/upload', Buffer.alloc(4096, 1), 'application/octet-stream');

    expect(answer.status).toBe(413);
    expect(answer.json.error.code).toBe('payload_too_large');
    expect(await stats(running.server)).toMatchObject({ waiting: 0 });
    expect(running.origin.at('/checkout/upload')).toHaveLength(0);
  });

  it('should answer 413 to a chunked protected POST above the limit too', async () => {
    const socket = await openRaw(running.server.port);
    const answer = readUntilClosed(socket, 3000);
    const chunk = `400\r\n${'b'.repeat(1024)}\r\n`;
    socket.write(
      'POST /checkout/upload HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/octet-stream\r\n' +
        `transfer-encoding: chunked\r\n\r\n${chunk.repeat(4)}0\r\n\r\n`,
    );

    expect((await answer).status).toBe(413);
    expect((await answer).json.error.code).toBe('payload_too_large');
    expect(await stats(running.server)).toMatchObject({ waiting: 0 });
  });

  it('should hold a protected POST of exactly the limit', async () => {
    const answer = await sendBytes(new Visitor(running.server.url), 'POST', '/checkout/upload', Buffer.alloc(2048, 1), 'application/octet-stream');

    expect(answer.page?.queue).toMatchObject({ uri: '/checkout/upload', method: 'POST' });
    expect(await stats(running.server)).toMatchObject({ waiting: 1 });
  });

  it('should count the bodies it holds and those it refuses', async () => {
    await sendBytes(new Visitor(running.server.url), 'POST', '/checkout/upload', Buffer.alloc(2048, 1), 'application/octet-stream');
    await sendBytes(new Visitor(running.server.url), 'POST', '/checkout/upload', Buffer.alloc(1000, 1), 'application/octet-stream');
    await sendBytes(new Visitor(running.server.url), 'POST', '/checkout/upload', Buffer.alloc(4096, 1), 'application/octet-stream');
    await new Visitor(running.server.url).get('/checkout');

    expect((await stats(running.server)).heldBodies).toEqual({ count: 2, bytes: 3048, refused: 1 });
  });

  it('should not bound the body of an unprotected POST', async () => {
    const bytes = randomBytes(4096);

    const answer = await send(`${running.server.url}/upload`, 'POST', { 'content-type': 'application/octet-stream' }, bytes);

    expect(answer.status).toBe(200);
    expect(running.origin.at('/upload')[0]?.body.equals(bytes)).toBe(true);
  });
});

describe('gateway: the bodies held at once are bounded, in all and per address', () => {
  let running: Running;
  let clock: ManualClock;
  const BOUNDS = { HELD_BODY_LIMIT: '2048', HELD_BODIES_PER_ADDRESS_BYTES: '4096', HELD_BODIES_MAX_BYTES: '8192', AWAY_SECONDS: '1' };

  beforeEach(async () => {
    clock = new ManualClock();
    running = await startGateway({ ...FULL, ...BOUNDS, TRUST_PROXY: 'true' }, clock);
    await fillRoom(running);
  });
  afterEach(() => running.close());

  /** A new visitor from `address` (the proxy in front says so) POSTs `size` bytes to a protected path. */
  async function postFrom(address: string, size = 2048, visitor = new Visitor(running.server.url)): Promise<Reply> {
    const cookie = visitor.cookieHeader();
    const answer = await send(
      `${running.server.url}/checkout/upload`,
      'POST',
      { 'content-type': 'application/octet-stream', 'x-forwarded-for': address, ...(cookie ? { cookie } : {}) },
      Buffer.alloc(size, 7),
    );
    visitor.keepCookies(answer.headers['set-cookie']);
    return answer;
  }

  it('should answer 429 with Retry-After to a body past the address’s bound, and take no place', async () => {
    const ada = new Visitor(running.server.url);
    expect((await postFrom('203.0.113.1', 2048, ada)).page?.queue.method).toBe('POST');
    expect((await postFrom('203.0.113.1')).page?.queue.method).toBe('POST');

    const refused = await postFrom('203.0.113.1', 1);

    expect([refused.status, refused.json.error.code, refused.headers['retry-after']]).toEqual([429, 'held_bodies_per_address', '30']);
    expect(await stats(running.server)).toMatchObject({ waiting: 2 });
    // Another address, a GET from this one, and a visitor of this address replacing their own body still wait.
    expect((await postFrom('203.0.113.2')).page?.queue.method).toBe('POST');
    expect((await new Visitor(running.server.url).get('/checkout/basket', { 'x-forwarded-for': '203.0.113.1' })).page?.queue.method).toBe('GET');
    expect((await postFrom('203.0.113.1', 2048, ada)).page?.queue.method).toBe('POST');
  });

  it('should answer 503 with Retry-After to a body past the process’s bound, whatever its address', async () => {
    for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.4']) expect((await postFrom(address)).status).toBe(200);

    const refused = await postFrom('203.0.113.5');

    expect([refused.status, refused.json.error.code, refused.headers['retry-after']]).toEqual([503, 'held_bodies_full', '30']);
    expect(await stats(running.server)).toMatchObject({ waiting: 4 });
  });

  it('should show a person the error page, in HTML, when their body is refused', async () => {
    await postFrom('203.0.113.1');
    await postFrom('203.0.113.1');

    const refused = await send(
      `${running.server.url}/checkout/upload`,
      'POST',
      { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '203.0.113.1', accept: 'text/html', 'sec-fetch-mode': 'navigate' },
      'item=shoes',
    );

    expect(refused.status).toBe(429);
    expect(String(refused.headers['content-type'])).toMatch(/^text\/html/);
  });

  it('should give back the bytes of a replayed body at once', async () => {
    const ada = new Visitor(running.server.url);
    const page = (await postFrom('203.0.113.1', 2048, ada)).page!;
    await postFrom('203.0.113.1');
    await release(running.server, page.queue.uuid);
    expect((await ada.post(page.queue.uri, replayForm(page), { 'x-forwarded-for': '203.0.113.1' })).status).toBe(200);

    expect((await postFrom('203.0.113.1')).status).toBe(200);
  });

  it('should give back the bytes of places dropped as silent', async () => {
    await postFrom('203.0.113.1');
    await postFrom('203.0.113.1');
    expect((await postFrom('203.0.113.1')).status).toBe(429);

    await clock.advance(3000);
    expect(await stats(running.server)).toMatchObject({ waiting: 0 });

    // The sweep looks the places up every second.
    const deadline = Date.now() + 10_000;
    let answer = await postFrom('203.0.113.1');
    while (answer.status === 429 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      answer = await postFrom('203.0.113.1');
    }
    expect(answer.status).toBe(200);
  });
});
