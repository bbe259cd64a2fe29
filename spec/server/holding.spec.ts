import type { PageConfigJson } from '@waiting-room/streams/contract';
import { request as httpRequest } from 'node:http';
import { userIdFor } from './support/origin';
import { StoreUnavailableError } from '../../server/store/errors';
import { MemoryStore } from '../../server/store/memory';
import { ManualClock } from './support/manual-clock';
import { admin, startServer, stats, type StartedWithOrigin } from './support/server';
import { Visitor } from './support/visitor';

/** The memory store, with Redis's failure mode for sign-in while `failing` is set. */
class FlakyStore extends MemoryStore {
  failing = false;

  override async moveSession(from: string, to: string, userId: number): Promise<void> {
    if (this.failing) throw new StoreUnavailableError('The queue store could not use Redis: Command timed out');
    return super.moveSession(from, to, userId);
  }
}

/**
 * The session's CSRF token as its cookie carries it (the token a page config of this session
 * shows), read without asking for a page, which would replace the session's held request.
 */
function sessionToken(visitor: Visitor): string {
  const signed = decodeURIComponent(visitor.cookie.slice(visitor.cookie.indexOf('=') + 1));
  const value = Buffer.from(signed.slice(0, signed.lastIndexOf('.')), 'base64url').toString();
  const [, , csrfToken] = JSON.parse(value) as unknown[];
  if (typeof csrfToken !== 'string') throw new Error(`No session in ${visitor.cookie}`);
  return csrfToken;
}

describe('holding protected requests', () => {
  let server: StartedWithOrigin;
  let clock: ManualClock;

  /** What reached the origin at `path` other than GETs. */
  const postsTo = (path: string) => server.origin.at(path).filter((one) => one.method !== 'GET');

  beforeEach(async () => {
    clock = new ManualClock();
    server = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' }, { clock });
  });
  afterEach(() => server.close());

  it('should let a visitor through while there is room, then hold the next one at its own URL', async () => {
    const first = new Visitor(server.url);
    const through = await first.get('/checkout?item=1');
    expect(through.status).toBe(200);
    expect(through.page).toBeUndefined();
    expect(through.text).toContain('<h1>Checkout</h1>');

    const second = new Visitor(server.url);
    const held = await second.get('/checkout?item=42');
    expect(held.status).toBe(200);
    expect(held.headers.get('cache-control')).toBe('no-store');
    expect(held.headers.get('content-type')).toMatch(/^text\/html/);
    expect(held.page).toEqual({
      queue: { uuid: expect.stringMatching(/^[0-9a-f-]{36}$/), uri: '/checkout?item=42', method: 'GET', position: 1 },
      user: { id: 0 },
      csrfToken: expect.any(String),
      realtime: { key: 'waiting-room-key', host: '127.0.0.1', port: server.port, forceTLS: false, cluster: 'local', authEndpoint: '/pusher/auth' },
      routes: { queue_request: '/queue/request', queue_info: '/queue/info/{uuid}' },
      errorReporting: { dsn: `http://public@127.0.0.1:${server.port}/1`, sampleRate: 0.5, release: '1.0.0' },
      language: expect.objectContaining({ locale: 'en', dir: 'ltr', messages: expect.objectContaining({ 'page.heading': 'You are in line' }) }),
      // AWAY_SECONDS, 1800 by default: the page says the visitor may leave for this long.
      awayMinutes: 30,
      handoff: { route: '/queue/handoff' },
    });
    expect(await stats(server)).toMatchObject({ waiting: 1, active: 1 });
  });

  it("should preload the held visitor's own queue_info address in the page's head, for the page's first call", async () => {
    await new Visitor(server.url).get('/checkout');
    const held = await new Visitor(server.url).get('/checkout?item=42');
    const link = `<link rel="preload" href="/queue/info/${held.page!.queue.uuid}" as="fetch" crossorigin>`;
    expect(held.text.indexOf(link)).toBeGreaterThan(0);
    expect(held.text.indexOf(link)).toBeLessThan(held.text.indexOf('</head>'));
  });

  it('should keep one place per session across a refresh and a second tab', async () => {
    await new Visitor(server.url).get('/checkout');
    const ada = new Visitor(server.url);
    const bob = new Visitor(server.url);
    const first = await ada.hold('/checkout?item=1');
    const bobs = await bob.hold('/checkout');

    const refreshed = await ada.hold('/checkout?item=1');
    const secondTab = await ada.hold('/checkout?item=7');

    expect(refreshed.queue).toEqual(first.queue);
    expect(secondTab.queue).toEqual({ ...first.queue, uri: '/checkout?item=7' });
    expect(bobs.queue.position).toBe(2);
    expect((await ada.queueInfo(first.queue.uuid)).json).toEqual({ position: 1, estimated: 1, ticket: 1, served: 0 });
    expect(await stats(server)).toMatchObject({ waiting: 2 });
  });

  it('should replace the pending request with a new one but keep the place', async () => {
    await new Visitor(server.url).get('/checkout');
    const ada = new Visitor(server.url);
    const bob = new Visitor(server.url);
    await bob.hold('/checkout');
    const asGet = await ada.hold('/checkout?item=1');

    const asPost = await ada.hold('/checkout?item=2', { form: { quantity: '2' } });

    expect(asPost.queue).toEqual({ uuid: asGet.queue.uuid, uri: '/checkout?item=2', method: 'POST', position: 2 });
  });

  it('should count positions in order of arrival', async () => {
    await new Visitor(server.url).get('/checkout');
    const visitors = [1, 2, 3].map(() => new Visitor(server.url));
    const pages: PageConfigJson[] = [];
    for (const visitor of visitors) pages.push(await visitor.hold());

    expect(pages.map((page) => page.queue.position)).toEqual([1, 2, 3]);
    const infos = await Promise.all(pages.map((page, i) => visitors[i].queueInfo(page.queue.uuid)));
    expect(infos.map((info) => info.json.position)).toEqual([1, 2, 3]);
    expect(infos[0].headers.get('cache-control')).toBe('no-store');
  });

  it('should write the config so that no value can end its script element', async () => {
    await new Visitor(server.url).get('/checkout');
    // fetch would percent-encode "<": send the request line as a hostile client could.
    const path = '/checkout?q=</script><script>alert(1)</script>';
    const html = await new Promise<string>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: server.port, path }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end();
    });
    const json = /<script id="waiting-room-config" type="application\/json">([\s\S]*?)<\/script>/.exec(html)?.[1];

    expect(json).toContain('\\u003c/script>');
    expect(JSON.parse(json ?? '').queue.uri).toBe(path);
    expect(html.match(/<script/g)).toHaveLength(1);
  });

  it('should give a signed-in visitor a page config with their user id', async () => {
    await new Visitor(server.url).get('/checkout');
    const ada = new Visitor(server.url);
    await ada.signIn('Ada');

    const page = await ada.hold();

    expect(page.user.id).toBeGreaterThan(0);
    expect(page.queue.position).toBe(1);
  });

  it('should keep the place in line when a waiting visitor signs in, with their user id and a new CSRF token', async () => {
    await new Visitor(server.url).get('/checkout');
    const ada = new Visitor(server.url);
    const anonymous = await ada.hold('/checkout?item=1');
    await new Visitor(server.url).hold();

    await ada.signIn('Ada');
    const signedIn = await ada.hold('/checkout?item=1');

    expect(signedIn.queue).toEqual(anonymous.queue);
    expect(signedIn.queue.position).toBe(1);
    expect(signedIn.user.id).toBe(userIdFor('Ada'));
    expect(signedIn.csrfToken).not.toBe(anonymous.csrfToken);
    const privateChannel = `private-App.User.${signedIn.user.id}.${signedIn.queue.uuid}`;
    const auth = await ada.post('/pusher/auth', { form: { socket_id: '123.456', channel_name: privateChannel } }, { 'x-csrf-token': signedIn.csrfToken });
    expect(auth.status).toBe(200);
    expect((await ada.queueRequest(anonymous)).json?.error?.code).toBe('csrf_mismatch');
    expect(await stats(server)).toMatchObject({ waiting: 2 });
  });

  it('should leave a cookie planted before sign-in no place, no admission and no held request', async () => {
    await new Visitor(server.url).get('/checkout');
    const planted = new Visitor(server.url);
    const ada = new Visitor(server.url);
    // The planter's own session, planted in Ada's browser before she signs in.
    const seenByPlanter = await planted.hold('/checkout?item=1');
    ada.cookie = planted.cookie;
    const held = await ada.hold('/checkout?item=1', { form: { note: 'for Ada', _token: await ada.csrfToken() } });
    await new Visitor(server.url).hold();

    await ada.signIn('Ada');
    await admin(server, 'POST', 'release', { count: 1 });
    const replayForm = { form: { uuid: held.queue.uuid, _token: seenByPlanter.csrfToken } };
    const plantedReplay = await planted.post('/checkout?item=1', replayForm);
    const plantedRequest = await planted.queueRequest(seenByPlanter);
    const plantedVisit = await planted.get('/checkout?item=9');
    // Ada's page config would show her new session's token; any new page would replace the held POST.
    const adaToken = sessionToken(ada);
    const replay = await ada.post('/checkout?item=1', { form: { uuid: held.queue.uuid, _token: adaToken } });
    const again = await ada.post('/checkout?item=1', { form: { uuid: held.queue.uuid, _token: adaToken } });

    expect(seenByPlanter.queue.uuid).toBe(held.queue.uuid);
    expect(held.csrfToken).toBe(seenByPlanter.csrfToken);
    expect(ada.cookie).not.toBe(planted.cookie);
    expect(adaToken).not.toBe(seenByPlanter.csrfToken);
    expect(plantedReplay.status).toBe(403);
    expect(plantedReplay.json.error.code).toBe('not_your_place');
    expect(plantedReplay.text).not.toContain('for Ada');
    expect(plantedRequest.status).toBe(403);
    expect(plantedRequest.json.error.code).toBe('not_your_place');
    expect(plantedVisit.page?.queue).toMatchObject({ uri: '/checkout?item=9', position: 2 });
    expect(plantedVisit.page?.queue.uuid).not.toBe(held.queue.uuid);
    expect(replay.status).toBe(200);
    expect(replay.text).toContain('a <strong>POST</strong> request');
    expect(replay.text).toContain('<th>note</th><td>for Ada</td>');
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('already_replayed');
    expect(postsTo('/checkout').map((one) => one.body.toString())).toEqual(['note=for+Ada&_token=origin-token']);
  });

  it('should replay a POST held after sign-in exactly once, for the signed-in visitor only', async () => {
    await new Visitor(server.url).get('/checkout');
    const ada = new Visitor(server.url);
    const planted = new Visitor(server.url);
    const anonymous = await ada.hold('/checkout?item=1');
    planted.cookie = ada.cookie;
    // All the planter knows: the session it planted, and that session's token.
    const plantedToken = anonymous.csrfToken;

    await ada.signIn('Ada');
    const held = await ada.hold('/checkout?item=1', { form: { note: 'signed in', _token: await ada.csrfToken() } });
    await admin(server, 'POST', 'release', { count: 1 });
    const replayForm = (token: string) => ({ form: { uuid: held.queue.uuid, _token: token } });
    const plantedReplay = await planted.post('/checkout?item=1', replayForm(plantedToken));
    const replays = await Promise.all([ada.post('/checkout?item=1', replayForm(held.csrfToken)), ada.post('/checkout?item=1', replayForm(held.csrfToken))]);
    const plantedAfter = await planted.post('/checkout?item=1', replayForm(plantedToken));

    expect(held.queue).toEqual({ ...anonymous.queue, method: 'POST' });
    expect(held.user.id).toBe(userIdFor('Ada'));
    expect(held.csrfToken).not.toBe(plantedToken);
    expect(plantedReplay.status).toBe(403);
    expect(plantedReplay.json.error.code).toBe('not_your_place');
    expect(plantedReplay.text).not.toContain('signed in');
    expect(replays.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect(replays.find((answer) => answer.status === 200)?.text).toContain('<th>note</th><td>signed in</td>');
    expect(plantedAfter.status).toBe(403);
    expect(postsTo('/checkout').map((one) => one.body.toString())).toEqual(['note=signed+in&_token=origin-token']);
    expect(await stats(server)).toMatchObject({ waiting: 0 });
  });

  it("should pass the origin's sign-in on, and keep the old session and place, when the store fails during sign-in", async () => {
    const store = new FlakyStore();
    const flaky = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' }, { clock, store });
    try {
      await new Visitor(flaky.url).get('/checkout');
      const ada = new Visitor(flaky.url);
      const waiting = await ada.hold('/checkout?item=1');
      const cookie = ada.cookie;

      store.failing = true;
      const failed = await ada.post('/login', { form: { name: 'Ada', _token: await ada.csrfToken() } });
      store.failing = false;
      const afterFailure = ada.cookie;
      const reachedOrigin = flaky.origin.at('/login').length;
      const still = await ada.hold('/checkout?item=1');
      await ada.signIn('Ada');
      const signedIn = await ada.hold('/checkout?item=1');

      // The origin has signed Ada in already: its answer is hers, without a new waiting-room session.
      expect(failed.status).toBe(303);
      expect(failed.headers.get('location')).toBe('/');
      expect(failed.headers.getSetCookie()).toEqual(['shop=Ada; Path=/']);
      expect(failed.headers.get('waiting-room-user')).toBeNull();
      expect(reachedOrigin).toBe(1);
      expect(afterFailure).toBe(cookie);
      expect(still).toEqual(waiting);
      expect(ada.cookie).not.toBe(cookie);
      expect(signedIn.queue).toEqual(waiting.queue);
      expect(signedIn.user.id).toBe(userIdFor('Ada'));
    } finally {
      await flaky.close();
    }
  });

  it('should keep an admitted visitor admitted when they sign in', async () => {
    const ada = new Visitor(server.url);
    expect((await ada.get('/checkout')).page).toBeUndefined();

    await ada.signIn('Ada');
    const again = await ada.get('/checkout');

    expect(again.status).toBe(200);
    expect(again.page).toBeUndefined();
    expect(await stats(server)).toMatchObject({ waiting: 0, active: 1 });
  });

  it('should start a new session on sign-out: a new place, and not the held request of the one before', async () => {
    await new Visitor(server.url).get('/checkout');
    const ada = new Visitor(server.url);
    await ada.signIn('Ada');
    const held = await ada.hold('/checkout?item=1', { form: { note: 'for Ada', _token: await ada.csrfToken() } });
    await new Visitor(server.url).hold();
    await admin(server, 'POST', 'release', { count: 1 });
    const signedIn = ada.cookie;

    const signedOut = await ada.post('/logout', { form: { _token: await ada.csrfToken() } });
    const next = await ada.hold('/checkout');
    const replay = await ada.post('/checkout?item=1', { form: { uuid: held.queue.uuid, _token: next.csrfToken } });

    expect(signedOut.status).toBe(303);
    expect(ada.cookie).not.toBe(signedIn);
    expect(next.user.id).toBe(0);
    expect(next.csrfToken).not.toBe(held.csrfToken);
    expect(next.queue.uuid).not.toBe(held.queue.uuid);
    expect(next.queue.position).toBe(2);
    expect(replay.status).toBe(403);
    expect(replay.json.error.code).toBe('not_your_place');
    expect(replay.text).not.toContain('for Ada');
    expect(postsTo('/checkout')).toEqual([]);
  });

  it('should protect a percent-encoded or trailing-slash spelling of a protected path', async () => {
    await new Visitor(server.url).get('/checkout');

    const encoded = await new Visitor(server.url).get('/%63heckout');
    const slashed = await new Visitor(server.url).get('/checkout/');

    expect(encoded.page?.queue.position).toBe(1);
    expect(slashed.page?.queue.position).toBe(2);
  });

  it('should answer HEAD with 503 without taking a place', async () => {
    await new Visitor(server.url).get('/checkout');

    const head = await new Visitor(server.url).send('HEAD', '/checkout');

    expect(head.status).toBe(503);
    expect(head.headers.get('retry-after')).toBe('60');
    expect(await stats(server)).toMatchObject({ waiting: 0 });
  });

  it('should never hold unprotected routes', async () => {
    await new Visitor(server.url).get('/checkout');

    const home = await new Visitor(server.url).get('/');

    expect(home.status).toBe(200);
    expect(home.page).toBeUndefined();
    expect(await stats(server)).toMatchObject({ waiting: 0 });
  });

  it('should hand the page the configured realtime address, sample rate, DSN and timings', async () => {
    const custom = await startServer(
      {
        ACTIVE_LIMIT: '1',
        PUSHER_CLIENT_HOST: 'realtime.example.test',
        PUSHER_CLIENT_PORT: '6001',
        SENTRY_SAMPLE_RATE: '1',
        SENTRY_DSN: 'https://key@errors.example.test/7',
        PAGE_TIMINGS: '{"positionZeroTimeout": 1500}',
      },
      { clock },
    );
    try {
      await new Visitor(custom.url).get('/checkout');
      const page = await new Visitor(custom.url).hold();

      expect(page.realtime).toMatchObject({ host: 'realtime.example.test', port: 6001 });
      expect(page.errorReporting).toEqual({
        dsn: 'https://key@errors.example.test/7',
        sampleRate: 1,
        release: '1.0.0',
      });
      expect((page as unknown as { timings: unknown }).timings).toEqual({ positionZeroTimeout: 1500 });
    } finally {
      await custom.close();
    }
  });
});
