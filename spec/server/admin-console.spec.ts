import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Pusher from 'pusher-js';
import { ADMIN_CHANNEL, SAMPLE_EVENT, SAMPLE_MS, type LiveSnapshot, type Sample } from '../../server/domain/console/samples';
import { start } from '../../server/process/start';
import { MemoryStore } from '../../server/store/memory';
import { ManualClock } from './support/manual-clock';
import { connectPusher, RawSocket, record, subscribe } from './support/realtime';
import { ADMIN_TOKEN, admin, startServer, stats, testConfig, waitFor, type StartedWithOrigin } from './support/server';
import { Visitor } from './support/visitor';

/** A browser signed in to the console: its cookie, and the CSRF token the console keeps in memory. */
class Operator {
  cookie = '';
  csrfToken = '';

  constructor(readonly base: string) {}

  async signIn(token = ADMIN_TOKEN): Promise<Response> {
    const answer = await fetch(`${this.base}/admin/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    const cookie = answer.headers.getSetCookie()[0];
    if (answer.status === 200 && cookie) {
      this.cookie = cookie.split(';')[0];
      this.csrfToken = ((await answer.clone().json()) as { csrfToken: string }).csrfToken;
    }
    return answer;
  }

  /** A call as the console makes it: the cookie, and the CSRF token unless `csrf` is false. */
  call(method: string, route: string, body?: unknown, { csrf = true }: { csrf?: boolean } = {}): Promise<Response> {
    return fetch(`${this.base}/admin/${route}`, {
      method,
      headers: {
        cookie: this.cookie,
        ...(csrf ? { 'x-csrf-token': this.csrfToken } : {}),
        ...(body === undefined ? {} : { 'content-type': typeof body === 'string' ? 'application/x-www-form-urlencoded' : 'application/json' }),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
  }
}

describe('the operator console', () => {
  let server: StartedWithOrigin;
  let clock: ManualClock;
  const clients: Pusher[] = [];
  const sockets: RawSocket[] = [];

  beforeEach(async () => {
    clock = new ManualClock();
    server = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', ADMIN_SESSION_SECONDS: '600' }, { clock });
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    for (const socket of sockets.splice(0)) socket.close();
    await server.close();
  });

  describe('signing in', () => {
    it('should exchange the token for an HttpOnly, SameSite=Strict cookie that holds no token', async () => {
      const operator = new Operator(server.url);
      const wrong = await operator.signIn('not-the-admin-token-at-all');
      const right = await operator.signIn();

      expect(wrong.status).toBe(401);
      expect((await wrong.json()).error.code).toBe('unauthorized');
      expect(right.status).toBe(200);
      const cookie = right.headers.getSetCookie()[0];
      expect(cookie).toMatch(/^waiting_room_admin=/);
      expect(cookie).toMatch(/; HttpOnly/);
      expect(cookie).toMatch(/; SameSite=Strict/);
      expect(cookie).toMatch(/; Path=\/admin/);
      expect(Buffer.from(operator.cookie.split('=')[1].split('.')[0], 'base64url').toString()).not.toContain(ADMIN_TOKEN);
      const session = await operator.call('GET', 'session');
      expect(await session.json()).toEqual({ csrfToken: operator.csrfToken, expiresAt: expect.any(Number) });
      expect((await operator.call('GET', 'stats')).status).toBe(200);
    });

    it("should refuse a change without the session's CSRF token, and take it with the token", async () => {
      const operator = new Operator(server.url);
      await operator.signIn();

      const forged = await operator.call('POST', 'pause', undefined, { csrf: false });
      const wrongToken = await fetch(`${server.url}/admin/pause`, { method: 'POST', headers: { cookie: operator.cookie, 'x-csrf-token': 'forged' } });
      expect([forged.status, wrongToken.status]).toEqual([403, 403]);
      expect((await forged.json()).error.code).toBe('csrf_mismatch');
      expect(await stats(server)).toMatchObject({ paused: false });

      expect((await operator.call('POST', 'pause')).status).toBe(200);
      expect(await stats(server)).toMatchObject({ paused: true });
      // The bearer token still works for curl, with no CSRF token.
      expect((await admin(server, 'POST', 'resume')).status).toBe(200);
    });

    it('should end the session at sign-out and when it expires', async () => {
      const first = new Operator(server.url);
      const second = new Operator(server.url);
      await first.signIn();
      await second.signIn();

      expect((await first.call('DELETE', 'session')).headers.getSetCookie()[0]).toMatch(/waiting_room_admin=;.*Expires=Thu, 01 Jan 1970/);
      await clock.advance(601_000);
      expect((await second.call('GET', 'stats')).status).toBe(401);
    });

    it('should refuse a session signed in under another admin token', async () => {
      const other = await start(
        testConfig({ ADMIN_TOKEN: 'another-admin-token-of-24-characters', UPSTREAM: server.origin.url }, { sessionSecret: 'x'.repeat(40) }),
      );
      const same = await start(testConfig({ UPSTREAM: server.origin.url }, { sessionSecret: 'x'.repeat(40) }));
      try {
        const operator = new Operator(other.url);
        await operator.signIn('another-admin-token-of-24-characters');
        const elsewhere = await fetch(`${same.url}/admin/stats`, { headers: { cookie: operator.cookie } });
        expect(elsewhere.status).toBe(401);
      } finally {
        await Promise.all([other.close(), same.close()]);
      }
    });

    it('should limit sign-in attempts from one address', async () => {
      const operator = new Operator(server.url);
      const answers = [];
      for (let i = 0; i < 11; i++) answers.push((await operator.signIn(`guess-${i}-${'x'.repeat(24)}`)).status);
      expect(answers.slice(0, 10)).toEqual(Array(10).fill(401));
      expect(answers[10]).toBe(429);
    });

    it('should bound wrong Bearer tokens on /admin/* and /metrics as it bounds sign-ins, counted together', async () => {
      const bearer = (route: string, token: string) => fetch(`${server.url}${route}`, { headers: { authorization: `Bearer ${token}` } });
      const answers = [];
      for (let i = 0; i < 10; i++) answers.push((await bearer(i % 2 ? '/metrics' : '/admin/stats', `guess-${i}-${'x'.repeat(24)}`)).status);
      expect(answers).toEqual(Array(10).fill(401));

      const startedAt = Date.now();
      const refused = await Promise.all([bearer('/admin/stats', `guess-a-${'x'.repeat(24)}`), bearer('/metrics', `guess-b-${'x'.repeat(24)}`)]);
      const signIn = await new Operator(server.url).signIn(`guess-c-${'x'.repeat(24)}`);

      expect([...refused, signIn].map((answer) => answer.status)).toEqual([429, 429, 429]);
      expect(Number(refused[0]?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(((await refused[0]?.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
      // Slowed: each refusal waits a second before it is sent.
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(900);
    });

    it('should let the right token through from an address whose wrong tokens are refused', async () => {
      const bearer = (route: string, token: string) => fetch(`${server.url}${route}`, { headers: { authorization: `Bearer ${token}` } });
      const operator = new Operator(server.url);
      for (let i = 0; i < 11; i++) await operator.signIn(`guess-${i}-${'x'.repeat(24)}`);
      expect((await bearer('/admin/stats', `guess-${'y'.repeat(24)}`)).status).toBe(429);

      expect((await bearer('/admin/stats', ADMIN_TOKEN)).status).toBe(200);
      expect((await bearer('/metrics', ADMIN_TOKEN)).status).toBe(200);
      expect((await operator.signIn()).status).toBe(200);
      expect((await operator.call('GET', 'stats')).status).toBe(200);
    });

    it('should serve its page to anyone, framed by nobody', async () => {
      // The console as this run built it (testConfig's assets).
      const page = await fetch(`${server.url}/admin/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    });

    it('should say the console is not built when its page is missing', async () => {
      const unbuilt = await startServer({}, { clock }, { assetsDir: mkdtempSync(path.join(tmpdir(), 'waiting-room-no-console-')) });
      try {
        const page = await fetch(`${unbuilt.url}/admin/`);
        expect(page.status).toBe(503);
        expect((await page.json()).error.code).toBe('console_not_built');
      } finally {
        await unbuilt.close();
      }
    });
  });

  describe('its private channel', () => {
    it('should sign the admin channel only for admin access', async () => {
      const operator = new Operator(server.url);
      await operator.signIn();
      const visitor = new Visitor(server.url);
      await new Visitor(server.url).get('/checkout');
      const page = await visitor.hold();
      const form = (channel: string) => new URLSearchParams({ socket_id: '123.456', channel_name: channel }).toString();

      const asVisitor = await visitor.post(
        '/pusher/auth',
        { raw: form(ADMIN_CHANNEL), type: 'application/x-www-form-urlencoded' },
        { 'x-csrf-token': page.csrfToken },
      );
      const visitorAtAdmin = await fetch(`${server.url}/admin/pusher/auth`, {
        method: 'POST',
        headers: { cookie: visitor.cookieHeader(), 'x-csrf-token': page.csrfToken, 'content-type': 'application/x-www-form-urlencoded' },
        body: form(ADMIN_CHANNEL),
      });
      const otherChannel = await operator.call('POST', 'pusher/auth', form(`private-App.User.1.${page.queue.uuid}`));
      const withoutCsrf = await operator.call('POST', 'pusher/auth', form(ADMIN_CHANNEL), { csrf: false });
      const badSocket = await operator.call('POST', 'pusher/auth', new URLSearchParams({ socket_id: 'x', channel_name: ADMIN_CHANNEL }).toString());
      const signed = await operator.call('POST', 'pusher/auth', form(ADMIN_CHANNEL));

      expect([asVisitor.status, visitorAtAdmin.status, otherChannel.status, withoutCsrf.status, badSocket.status, signed.status]).toEqual([
        403, 401, 403, 403, 400, 200,
      ]);
      expect((await badSocket.json()).error).toEqual({ code: 'bad_socket_id', message: 'socket_id must look like 1234.5678.' });
      expect((await signed.json()).auth).toMatch(/^waiting-room-key:[0-9a-f]{64}$/);
    });

    it('should not let a signature for one socket open the channel on another (a stolen socket id)', async () => {
      const operator = new Operator(server.url);
      await operator.signIn();
      const victim = await RawSocket.open(server);
      const attacker = await RawSocket.open(server);
      sockets.push(victim, attacker);
      const stolenId = await victim.socketId();
      // What an operator's console got signed for its own socket…
      const { auth } = (await (
        await operator.call('POST', 'pusher/auth', new URLSearchParams({ socket_id: stolenId, channel_name: ADMIN_CHANNEL }).toString())
      ).json()) as { auth: string };
      // …is worth nothing on any other socket, and a socket cannot choose its id.
      attacker.send({ event: 'pusher:subscribe', data: { channel: ADMIN_CHANNEL, auth } });
      expect((await attacker.next('pusher:subscription_error')).data.type).toBe('AuthError');
      // A guessed name without the prefix is another, public channel that nothing is sent on.
      attacker.send({ event: 'pusher:subscribe', data: { channel: ADMIN_CHANNEL.replace('private-', '') } });
      await attacker.next('pusher_internal:subscription_succeeded');
      await clock.advance(SAMPLE_MS);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(attacker.messages.filter((message) => message.event === SAMPLE_EVENT)).toEqual([]);
    });

    it('should push a sample of the line to a signed-in console every two seconds', async () => {
      const operator = new Operator(server.url);
      await operator.signIn();
      const pusher = await connectPusher(server, {
        channelAuthorization: {
          endpoint: `${server.url}/admin/pusher/auth`,
          transport: 'ajax',
          customHandler: ({ socketId, channelName }, callback) => {
            operator
              .call('POST', 'pusher/auth', new URLSearchParams({ socket_id: socketId, channel_name: channelName }).toString())
              .then(async (answer) => callback(null, (await answer.json()) as { auth: string }))
              .catch((error: Error) => callback(error, null));
          },
        },
      });
      clients.push(pusher);
      const { channel, error } = await subscribe(pusher, ADMIN_CHANNEL);
      expect(error).toBeUndefined();
      const samples = record(channel, SAMPLE_EVENT) as Sample[];

      await new Visitor(server.url).get('/checkout');
      await new Visitor(server.url).hold();
      await new Visitor(server.url).hold();
      await clock.advance(SAMPLE_MS);
      await waitFor(() => samples.length === 1, 'the first sample');
      await admin(server, 'POST', 'release', { count: 1 });
      await admin(server, 'POST', 'codes', { count: 2 });
      await clock.advance(SAMPLE_MS);
      await waitFor(() => samples.length === 2, 'the second sample');

      expect(samples.map((sample) => sample.rooms[0])).toEqual([
        expect.objectContaining({
          room: 'default',
          waiting: 2,
          active: 1,
          released: 0,
          arrived: 2,
          paused: false,
          activeLimit: 1,
          perMinute: 0,
          codes: { issued: 0, used: 0 },
        }),
        expect.objectContaining({ waiting: 1, active: 2, released: 1, arrived: 2, codes: { issued: 2, used: 0 } }),
      ]);
      expect(samples[1].t - samples[0].t).toBe(SAMPLE_MS);
      // The console's first call has the last hour, and where to listen.
      const live = (await (await operator.call('GET', 'live')).json()) as LiveSnapshot;
      expect(live).toMatchObject({ channel: ADMIN_CHANNEL, event: SAMPLE_EVENT, sampleMs: SAMPLE_MS, rooms: ['default'], origin: server.origin.url });
      expect(live.realtime).toMatchObject({ key: 'waiting-room-key', port: server.port, forceTLS: false });
      expect(live.history.map((sample) => sample.t)).toEqual(samples.map((sample) => sample.t));
    });
  });

  describe('limits', () => {
    it("should keep the operator's limits in the store: admission follows, and another instance on the same store within a tick", async () => {
      const store = new MemoryStore();
      const one = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' }, { clock, store });
      const two = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' }, { clock, store });
      try {
        const changed = await admin(one, 'POST', 'limits', { activeLimit: 3, releasePerMinute: 30 });
        expect(await changed.json()).toMatchObject({ activeLimit: 3, releasePerMinute: 30, configured: { activeLimit: 1, releasePerMinute: 0 } });
        await clock.advance(1000);
        expect(await stats(two)).toMatchObject({ activeLimit: 3, releasePerMinute: 30 });
        // Three sessions admitted on the second instance, the fourth held.
        for (let i = 0; i < 3; i++) expect((await new Visitor(two.url).get('/checkout')).page).toBeUndefined();
        expect((await new Visitor(two.url).get('/checkout')).page?.queue.position).toBe(1);

        const reset = await admin(two, 'POST', 'limits', { activeLimit: null });
        expect(await reset.json()).toMatchObject({ activeLimit: 1, releasePerMinute: 30 });
        await clock.advance(1000);
        expect(await stats(one)).toMatchObject({ activeLimit: 1, releasePerMinute: 30 });
      } finally {
        await Promise.all([one.close(), two.close()]);
      }
    });

    it('should refuse limits out of bounds naming the field, and change nothing', async () => {
      const zero = await admin(server, 'POST', 'limits', { activeLimit: 0 });
      const text = await admin(server, 'POST', 'limits', { releasePerMinute: 'fast' });
      const unknown = await admin(server, 'POST', 'limits', { sessionSeconds: 5 });

      expect(zero.status).toBe(400);
      expect((await zero.json()).error).toEqual({
        code: 'bad_active_limit',
        message: '"activeLimit" must be a whole number from 1 to 1000000, or null for the configured value.',
      });
      expect((await text.json()).error.code).toBe('bad_release_per_minute');
      expect((await unknown.json()).error).toEqual({ code: 'bad_request', message: 'The body has a field this route does not take: "sessionSeconds".' });
      expect(await stats(server)).toMatchObject({ activeLimit: 1, releasePerMinute: 0 });
    });

    it('should keep the limits across a restart with STATE_FILE', async () => {
      const stateFile = path.join(mkdtempSync(path.join(tmpdir(), 'waiting-room-limits-')), 'line.json');
      const config = testConfig({ STATE_FILE: stateFile, UPSTREAM: server.origin.url, ACTIVE_LIMIT: '1' });
      const before = await start(config);
      await admin(before, 'POST', 'limits', { activeLimit: 7 });
      await before.close();
      const after = await start(config);
      try {
        expect(await stats(after)).toMatchObject({ activeLimit: 7, configured: { activeLimit: 1 } });
      } finally {
        await after.close();
      }
    });
  });
});
