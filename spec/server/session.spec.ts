import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { ensureSession, installSessions, SESSION_COOKIE } from '../../server/session';
import type { Started } from '../../server/start';
import { startServer } from './support/server';
import { Visitor } from './support/visitor';

describe('sessions through @fastify/cookie', () => {
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    app = Fastify();
    installSessions(app, 'a-secret-known-to-the-test');
    // A route of the site beside the waiting room, using the cookie plugin's own API.
    app.get('/theme', async (request, reply) => {
      const session = ensureSession(request, reply);
      reply.setCookie('theme', 'dark', { path: '/' });
      return { theme: request.cookies.theme ?? null, sessionId: session.id };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => app.close());

  it("should let the site's own routes read and set cookies beside the session cookie", async () => {
    const visitor = new Visitor(base);
    const first = await visitor.get('/theme', { cookie: 'theme=light' });
    const cookies = first.headers.getSetCookie();
    const session = cookies.find((cookie) => cookie.startsWith(`${SESSION_COOKIE}=`)) ?? '';

    const again = await fetch(`${base}/theme`, { headers: { cookie: `theme=light; ${session.split(';')[0]}` } });

    expect(first.status).toBe(200);
    expect(first.json.theme).toBe('light');
    expect(cookies).toHaveLength(2);
    expect(cookies).toContain('theme=dark; Path=/; SameSite=Lax');
    expect(session).toMatch(/^waiting_room_session=[^;]+; Path=\/; HttpOnly; SameSite=Lax$/);
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
    const overHttps = await new Visitor(server.url).get('/', { 'x-forwarded-proto': 'https' });
    const overHttp = await new Visitor(server.url).get('/', { 'x-forwarded-proto': 'http' });

    const attributes = (answer: { headers: Headers }) => (answer.headers.get('set-cookie') ?? '').split('; ').slice(1);

    expect(attributes(overHttps).sort()).toEqual(['HttpOnly', 'Path=/', 'SameSite=Lax', 'Secure']);
    expect(attributes(overHttp).sort()).toEqual(['HttpOnly', 'Path=/', 'SameSite=Lax']);
  });
});
