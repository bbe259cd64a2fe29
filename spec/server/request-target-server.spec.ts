import fc from 'fast-check';
import type { Started } from '../../server/start';
import { ManualClock } from './support/manual-clock';
import { startServer, stats } from './support/server';
import { rawExchange, rawRequest, type RawAnswer } from './support/raw-http';
import { protectedSpelling } from './support/targets';
import { Visitor } from './support/visitor';

const THROUGH = 'You are through';
const CONFIG = /<script id="waiting-room-config" type="application\/json">([\s\S]*?)<\/script>/;

/** The held request's uri, when the answer is the waiting page. */
const heldUri = (answer: RawAnswer): string | undefined => {
  const config = CONFIG.exec(answer.body)?.[1];
  return config === undefined ? undefined : JSON.parse(config).queue.uri;
};

/**
 * The room is full (one visitor admitted, no releases): whatever spelling of the protected
 * path an unadmitted visitor sends, they are held or refused, never served the checkout.
 */
describe('request targets against the running server, room full', () => {
  let server: Started;
  let eve: Visitor;
  let token: string;

  beforeAll(async () => {
    server = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' }, { clock: new ManualClock() });
    const admitted = new Visitor(server.url);
    expect((await admitted.get('/checkout')).text).toContain(THROUGH);
    eve = new Visitor(server.url);
    token = await eve.csrfToken();
  });
  afterAll(() => server.close());

  const send = (method: 'GET' | 'POST', target: string, csrf?: string, cookie = eve.cookie) => {
    const headers: Record<string, string> = cookie === '' ? {} : { cookie };
    if (method === 'GET') return rawExchange(server.port, rawRequest('GET', target, headers));
    const body = new URLSearchParams({ quantity: '1', ...(csrf === undefined ? {} : { _token: csrf }) }).toString();
    return rawExchange(
      server.port,
      rawRequest('POST', target, { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body),
    );
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

  it('should hold or refuse every spelling of the protected path, for GET and POST with or without a CSRF token and cookie', async () => {
    await fc.assert(
      fc.asyncProperty(
        protectedSpelling(['/checkout']),
        fc.constantFrom('GET', 'POST with token', 'POST without token', 'POST without cookie'),
        async ({ target }, how) => {
          const answer =
            how === 'GET'
              ? await send('GET', target)
              : how === 'POST with token'
                ? await send('POST', target, token)
                : how === 'POST without token'
                  ? await send('POST', target)
                  : await send('POST', target, token, '');
          expectHeldOrRefused(answer);
          if (how !== 'GET' && how !== 'POST with token' && answer.status !== 400) {
            expect(answer.json.error.code).toBe('csrf_mismatch');
          }
        },
      ),
      { numRuns: 150 },
    );
    // One place for Eve, however many spellings she sent.
    expect(await stats(server)).toMatchObject({ waiting: 1, active: 1 });
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

  it('should check the CSRF token of an absolute-form POST, and hold it once it is right', async () => {
    const forged = await send('POST', 'http://any-host/checkout');
    const held = await send('POST', 'http://any-host/checkout?item=2', token);

    expect(forged.status).toBe(419);
    expect(forged.json.error.code).toBe('csrf_mismatch');
    expect(heldUri(held)).toBe('/checkout?item=2');
  });

  it.each(['/checkout#x', '/%', '/check%zzout', '/checkout%2F', '/checkout\\x', 'ftp://any-host/checkout'])(
    'should refuse %s with 400 bad_request_target',
    async (target) => {
      for (const answer of [await send('GET', target), await send('POST', target, token)]) {
        expect(answer.status).toBe(400);
        expect(answer.json).toEqual({
          error: { code: 'bad_request_target', message: expect.stringMatching(/^The request target is refused: /) },
        });
      }
    },
  );
});

/**
 * An admitted visitor's normalized targets reach the router: the demo's checkout answers the
 * exact path only, so other case or a trailing slash, held while the room is full, are 404.
 */
describe('request targets of an admitted visitor', () => {
  let server: Started;
  let ada: Visitor;

  beforeAll(async () => {
    server = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' }, { clock: new ManualClock() });
    ada = new Visitor(server.url);
    await ada.get('/checkout');
  });
  afterAll(() => server.close());

  it.each([
    ['http://any-host/checkout?item=3', 200],
    ['/./check%6Fut', 200],
    ['/CHECKOUT', 404],
    ['/checkout/', 404],
  ])('should answer %s with %d', async (target, status) => {
    const answer = await rawExchange(server.port, rawRequest('GET', target, { cookie: ada.cookie }));

    expect(answer.status).toBe(status);
    if (status === 200) expect(answer.body).toContain(THROUGH);
    else expect(answer.json.error.code).toBe('not_found');
  });
});
