import fc from 'fast-check';
import { ManualClock } from './support/manual-clock';
import { startServer, stats, type StartedWithOrigin } from './support/server';
import { rawExchange, rawRequest, type RawAnswer } from './support/raw-http';
import { protectedSpelling } from './support/targets';
import { Visitor } from './support/visitor';

/** A uuid that is no place of the session's: with a wrong token, a form naming it is no replay. */
const STRANGER = '0b7c5e1a-3f4d-4c2b-9a8e-123456789abc';

const THROUGH = 'You are through';
const CONFIG = /<script id="waiting-room-config" type="application\/json">([\s\S]*?)<\/script>/;

/** The waiting page's config, when the answer is the waiting page. */
const heldConfig = (answer: RawAnswer): { queue: { uuid: string; uri: string; method: string } } | undefined => {
  const config = CONFIG.exec(answer.body)?.[1];
  return config === undefined ? undefined : JSON.parse(config);
};

/** The held request's uri, when the answer is the waiting page. */
const heldUri = (answer: RawAnswer): string | undefined => heldConfig(answer)?.queue.uri;

/**
 * The room is full (one visitor admitted, no releases): whatever spelling of the protected
 * path an unadmitted visitor sends, they are held or refused, never served the checkout, and
 * nothing of it reaches the origin.
 */
describe('request targets against the running server, room full', () => {
  let server: StartedWithOrigin;
  let eve: Visitor;
  let token: string;
  let uuid: string;

  beforeAll(async () => {
    server = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' }, { clock: new ManualClock() });
    const admitted = new Visitor(server.url);
    expect((await admitted.get('/checkout')).text).toContain(THROUGH);
    eve = new Visitor(server.url);
    const page = await eve.hold('/checkout');
    token = page.csrfToken;
    uuid = page.queue.uuid;
  });
  afterAll(() => server.close());

  /** A GET, or a POST of `fields` as a form; with Eve's session cookie unless told otherwise. */
  const send = (method: 'GET' | 'POST', target: string, fields: Record<string, string> = {}, cookie = eve.cookie) => {
    const headers: Record<string, string> = cookie === '' ? {} : { cookie };
    if (method === 'GET') return rawExchange(server.port, rawRequest('GET', target, headers));
    const body = new URLSearchParams(fields).toString();
    return rawExchange(server.port, rawRequest('POST', target, { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body));
  };

  /** Held (the waiting page) or a 4xx in the error contract; never the protected page. */
  const expectHeldOrRefused = (answer: RawAnswer) => {
    expect(answer.body).not.toContain(THROUGH);
    if (answer.status === 200) {
      expect(heldUri(answer)).toEqual(expect.stringMatching(/^\//));
    } else {
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expect(answer.json).toEqual({ error: { code: expect.any(String), message: expect.any(String) } });
    }
  };

  it('should hold or refuse every spelling of the protected path, for GET and POST, replay form or not, with or without a cookie', async () => {
    const reachedBefore = server.origin.received.length;
    let cookielessHeld = 0;
    await fc.assert(
      fc.asyncProperty(
        protectedSpelling(['/checkout']),
        fc.constantFrom('GET', 'POST a form', 'POST the replay form', 'POST the replay form, forged', 'POST without cookie'),
        async ({ target }, how) => {
          const answer =
            how === 'GET'
              ? await send('GET', target)
              : how === 'POST a form'
                ? await send('POST', target, { quantity: '1' })
                : how === 'POST the replay form'
                  ? await send('POST', target, { uuid, _token: token })
                  : how === 'POST the replay form, forged'
                    ? await send('POST', target, { uuid: STRANGER, _token: 'forged' })
                    : await send('POST', target, { quantity: '1', _token: token }, '');
          expectHeldOrRefused(answer);
          const code = answer.json?.error?.code;
          if (how === 'POST the replay form') {
            // This session's token: the waiting room's own form, answered by it, never held.
            expect(answer.status).not.toBe(200);
            const replayCodes = ['get_replay', 'replay_target_mismatch', 'not_released'];
            if (code !== 'bad_request_target') expect(replayCodes).toContain(code);
          } else if (answer.status !== 200) {
            // Any other request is held like any other; only a target the server refuses is not.
            expect(code).toBe('bad_request_target');
          }
          if (how === 'POST without cookie' && answer.status === 200) cookielessHeld++;
        },
      ),
      { numRuns: 150 },
    );
    // One place for Eve, however many spellings she sent; one for each request sent without a session.
    expect(await stats(server)).toMatchObject({ waiting: 1 + cookielessHeld, active: 1 });
    expect(server.origin.received.slice(reachedBefore)).toEqual([]);
  });

  it.each([
    ['/check%6Fut', '/checkout'],
    ['/./checkout', '/checkout'],
    ['//checkout', '/checkout'],
    ['/x/../checkout', '/checkout'],
    ['/CHECKOUT', '/CHECKOUT'],
    ['/Checkout/', '/Checkout/'],
    ['http://any-host/checkout?item=1', '/checkout?item=1'],
  ])('should hold GET %s, to be replayed at %s', async (target, uri) => {
    const answer = await send('GET', target);

    expect(answer.status).toBe(200);
    expect(heldUri(answer)).toBe(uri);
  });

  it("should read an absolute-form POST's replay form by its token: this session's is answered by the waiting room, a forged one is held", async () => {
    const reachedBefore = server.origin.received.length;
    const held = await send('POST', 'http://any-host/checkout?item=2', { quantity: '1' });
    const early = await send('POST', 'http://any-host/checkout?item=2', { uuid, _token: token });
    const forged = await send('POST', 'http://any-host/checkout?item=2', { uuid: STRANGER, _token: 'forged' });

    expect(heldConfig(held)?.queue).toMatchObject({ uuid, uri: '/checkout?item=2', method: 'POST' });
    expect(early.status).toBe(409);
    expect(early.json.error.code).toBe('not_released');
    expect(heldConfig(forged)?.queue).toMatchObject({ uuid, uri: '/checkout?item=2', method: 'POST' });
    expect(server.origin.received.slice(reachedBefore)).toEqual([]);
  });

  it.each(['/checkout#x', '/%', '/check%zzout', '/checkout%2F', '/checkout\\x', 'ftp://any-host/checkout'])(
    'should refuse %s with 400 bad_request_target',
    async (target) => {
      for (const answer of [await send('GET', target), await send('POST', target, { quantity: '1' })]) {
        expect(answer.status).toBe(400);
        expect(answer.json).toEqual({
          error: { code: 'bad_request_target', message: expect.stringMatching(/^The request target is refused: /) },
        });
      }
    },
  );
});

/**
 * An admitted visitor's targets reach the origin normalized: the one spelling the gate judged.
 * Case and a trailing slash are kept, for the origin to read as it does.
 */
describe('request targets of an admitted visitor', () => {
  let server: StartedWithOrigin;
  let ada: Visitor;

  beforeAll(async () => {
    server = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' }, { clock: new ManualClock() });
    ada = new Visitor(server.url);
    await ada.get('/checkout');
  });
  afterAll(() => server.close());

  it.each([
    ['http://any-host/checkout?item=3', '/checkout?item=3'],
    ['/./check%6Fut', '/checkout'],
    ['//checkout', '/checkout'],
    ['/x/../checkout', '/checkout'],
    ['/CHECKOUT', '/CHECKOUT'],
    ['/checkout/', '/checkout/'],
  ])('should forward %s to the origin as %s', async (target, forwarded) => {
    const reachedBefore = server.origin.received.length;
    const answer = await rawExchange(server.port, rawRequest('GET', target, { cookie: ada.cookie }));

    expect(answer.status).toBe(200);
    expect(answer.body).toContain(THROUGH);
    expect(server.origin.received.slice(reachedBefore).map((one) => one.url)).toEqual([forwarded]);
  });
});
