import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { ensureSession, installSessions, SESSION_COOKIE } from '../../server/http/session';
import type { Started } from '../../server/process/start';
import { startServer, type StartedWithOrigin } from './support/server';
import { Visitor } from './support/visitor';

describe('sessions through @fastify/cookie', () => {
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    app = Fastify();
    installSessions(app, 'a-secret-known-to-the-test');
    // Another route of the same server, using the cookie plugin's own API beside the session.
    app.get('/theme', async (request, reply) => {
      const session = ensureSession(request, reply);
      reply.setCookie('theme', 'dark', { path: '/' });
      return { theme: request.cookies.theme ?? null, sessionId: session.id };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => app.close());

  it('should let other routes of the same server read and set cookies beside the session cookie', async () => {
    const visitor = new Visitor(base);
    const first = await visitor.get('/theme', { cookie: 'theme=light' });
    const cookies = first.headers.getSetCookie();
    const session = cookies.find((cookie) => cookie.startsWith(`${SESSION_COOKIE}=`)) ?? '';

    const again = await fetch(`${base}/theme`, { headers: { cookie: `theme=light; ${session.split(';')[0]}` } });

    expect(first.status).toBe(200);
    expect(first.json.theme).toBe('light');
    expect(cookies).toHaveLength(2);
    expect(cookies).toContain('theme=dark; Path=/; SameSite=Lax');
    // Only the session cookie outlives the browser (a day): a place in line must survive its restart.
    expect(session).toMatch(/^waiting_room_session=[^;]+; Max-Age=86400; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(((await again.json()) as { sessionId: string }).sessionId).toBe(first.json.sessionId);
    expect(again.headers.getSetCookie()).toEqual(['theme=dark; Path=/; SameSite=Lax']);
  });
});

describe('the session cookie behind a proxy', () => {
  let server: Started;

  beforeAll(async () => {
    server = await startServer({ TRUST_PROXY: 'true' });
  });
  afterAll(() => server.close());

  it('should mark the cookie Secure only when the visitor came over https', async () => {
    const overHttps = await new Visitor(server.url).get('/checkout', { 'x-forwarded-proto': 'https' });
    const overHttp = await new Visitor(server.url).get('/checkout', { 'x-forwarded-proto': 'http' });

    const attributes = (answer: { headers: Headers }) => (answer.headers.get('set-cookie') ?? '').split('; ').slice(1);

    expect(attributes(overHttps).sort()).toEqual(['HttpOnly', 'Max-Age=86400', 'Path=/', 'SameSite=Lax', 'Secure']);
    expect(attributes(overHttp).sort()).toEqual(['HttpOnly', 'Max-Age=86400', 'Path=/', 'SameSite=Lax']);
  });
});

describe('the session cookie beside the origin', () => {
  let server: StartedWithOrigin;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('should set the session cookie on protected paths only', async () => {
    const visitor = new Visitor(server.url);

    const home = await visitor.get('/');
    const elsewhere = await visitor.get('/nowhere');
    const checkout = await visitor.get('/checkout');

    expect(home.headers.getSetCookie()).toEqual([]);
    expect(elsewhere.headers.getSetCookie()).toEqual([]);
    expect(checkout.headers.getSetCookie()).toEqual([expect.stringMatching(new RegExp(`^${SESSION_COOKIE}=`))]);
    expect(visitor.cookie).toMatch(new RegExp(`^${SESSION_COOKIE}=.`));
  });

  it("should pass the origin's cookies both ways beside the session cookie, and never the session cookie to the origin", async () => {
    const visitor = new Visitor(server.url);
    await visitor.get('/checkout');
    const before = visitor.cookie;

    const signIn = await visitor.post('/login', { form: { name: 'Ada' } });
    await visitor.get('/nowhere?after-sign-in');
    const reached = server.origin.received.filter((one) => one.url === '/nowhere?after-sign-in');
    const ours = new RegExp(`^${SESSION_COOKIE}=[^;]+; Max-Age=86400; Path=/; HttpOnly; SameSite=Lax$`);

    expect(signIn.status).toBe(303);
    expect(signIn.headers.getSetCookie()).toEqual(expect.arrayContaining(['shop=Ada; Path=/', expect.stringMatching(ours)]));
    expect(signIn.headers.getSetCookie()).toHaveLength(2);
    expect(visitor.cookie).not.toBe(before);
    expect(reached).toHaveLength(1);
    expect(reached[0]?.headers.cookie).toBe('shop=Ada');
    expect(server.origin.received.filter((one) => String(one.headers.cookie ?? '').includes(SESSION_COOKIE))).toEqual([]);
  });
});
