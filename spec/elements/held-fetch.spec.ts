/**
 * @jest-environment node
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import Pusher from 'pusher-js';
import { createHeldFetch, type HeldFetchDeps } from '../../elements/held-fetch';
import { WaitingRoomError } from '../../elements/errors';
import { CATALOGUES } from '../../locales';
import type { Progress } from '../../elements/progress';
import type { Fetch } from '../../elements/queue-sources';
import { start, type Started } from '../../server/process/start';
import { startTestOrigin, type TestOrigin } from '../server/support/origin';
import { admin, testConfig } from '../server/support/server';
import { eventually } from '../support/eventually';
import { solveAltcha as solveAltchaInNode } from '../support/solve-altcha';

jest.setTimeout(30_000);

/** Timings short enough for a test: polls every 300 ms, position 0 tolerated for 1 s. */
const TIMINGS = { anonymousPoll: 300, positionZeroTimeout: 1000 };

/** The site: echoes what it received as JSON at /checkout…, answers 503 of its own at /busy. */
function answer(request: IncomingMessage, response: ServerResponse, body: Buffer): void {
  const json = (status: number, value: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    response.end(JSON.stringify(value));
  };
  if (request.url?.startsWith('/busy')) return json(503, { error: { code: 'maintenance', message: 'Back soon.' } });
  if (request.url?.startsWith('/looks-held')) return json(503, { queue: { uuid: 'not a uuid!' } });
  json(200, { method: request.method, url: request.url, body: body.toString() });
}

/** One browser for heldFetch: its own cookie jar (the waiting room's session), every call recorded. */
function browser() {
  const cookies = new Map<string, string>();
  const calls: string[] = [];
  const fetchInBrowser: Fetch = async (request) => {
    const headers = new Headers(request.headers);
    if (cookies.size) headers.set('cookie', [...cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    calls.push(`${request.method} ${new URL(request.url).pathname}`);
    const response = await fetch(new Request(request, { headers }));
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
    return response;
  };
  return { fetch: fetchInBrowser, calls };
}

describe('heldFetch() against the real gateway, realtime server and a site behind it', () => {
  let origin: TestOrigin;
  let server: Started;
  const url = (path: string) => server.url + path;

  /**
   * A heldFetch for a new browser, with real pusher-js, every connection recorded. The browser
   * has its waiting-room session first (a page of the site held, as when the app was loaded), so
   * that the requests the test sends at once share its place; `fresh` leaves it without.
   */
  async function newHeldFetch(extra: Partial<HeldFetchDeps> = {}, fresh = false) {
    const { fetch, calls } = browser();
    if (!fresh) expect((await fetch(new Request(url('/checkout/app')))).status).toBe(503);
    const connections: Array<{ disconnected: boolean }> = [];
    const heldFetch = createHeldFetch({
      fetch,
      createRealtime: (key, options) => {
        const pusher = new Pusher(key, options);
        const connection = { disconnected: false };
        connections.push(connection);
        const disconnect = pusher.disconnect.bind(pusher);
        pusher.disconnect = () => {
          connection.disconnected = true;
          disconnect();
        };
        return pusher;
      },
      ...extra,
    });
    const progress: Progress[] = [];
    heldFetch.progress$.subscribe((one) => progress.push(one));
    return { heldFetch, calls, connections, progress };
  }

  /** Waits until `progress` shows the request waiting at a position, i.e. the wait is connected and polling. */
  const waitingIn = (progress: Progress[]) =>
    eventually(
      'a position',
      async () => progress[progress.length - 1],
      (last) => last?.status?.kind == 'waiting',
    );
  const release = async (body: Record<string, unknown> = { count: 1 }) => (await (await admin(server, 'POST', 'release', body)).json()).released as string[];
  const received = (path: string) => origin.at(path).length;

  beforeAll(async () => {
    origin = await startTestOrigin(answer);
    server = await start(
      testConfig({ UPSTREAM: origin.url, PROTECT: '/checkout', ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', PAGE_TIMINGS: JSON.stringify(TIMINGS) }),
    );
    // The room is full: every new browser is held.
    expect((await fetch(url('/checkout/fill'))).status).toBe(200);
  });
  afterAll(async () => {
    await server.close();
    await origin.close();
  });

  it("should wait in line, then resolve with the site's answer, the request having reached the site once", async () => {
    const { heldFetch, calls, connections, progress } = await newHeldFetch();
    const answered = heldFetch(url('/checkout/one?item=7'));
    await waitingIn(progress);
    expect(progress[progress.length - 1]).toMatchObject({ held: 1, status: { kind: 'waiting', position: 1 }, language: { locale: 'en', dir: 'ltr' } });
    expect(received('/checkout/one')).toBe(0);

    await release();
    const response = await answered;
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ method: 'GET', url: '/checkout/one?item=7' });
    expect(received('/checkout/one')).toBe(1);
    // The same calls as the waiting page: queue_request once subscribed, queue_info polls.
    expect(calls.filter((call) => call == 'POST /queue/request')).toHaveLength(1);
    expect(calls.some((call) => call.startsWith('GET /queue/info/'))).toBe(true);
    expect(connections).toEqual([{ disconnected: true }]);
    expect(progress[progress.length - 1]).toEqual({ held: 0, status: null, language: null });
  });

  it("should give <waiting-room-status> the language the gateway chose for the request, with the element's messages", async () => {
    const { heldFetch, progress } = await newHeldFetch();
    const answered = heldFetch(url('/checkout/german'), { headers: { 'accept-language': 'de-AT,de;q=0.9,en;q=0.5' } });
    await waitingIn(progress);
    const { language } = progress[progress.length - 1];
    expect(language).toMatchObject({ locale: 'de', dir: 'ltr' });
    expect(language?.messages).toMatchObject({
      'element.heading': CATALOGUES.de.messages['element.heading'],
      'page.estimated': CATALOGUES.de.messages['page.estimated'],
    });
    await release();
    expect((await answered).status).toBe(200);
  });

  it('should send a held body again, byte for byte, once: a string and a stream alike', async () => {
    const { heldFetch, progress } = await newHeldFetch();
    const text = JSON.stringify({ quantity: 2, note: 'gift wrap' });
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('part one, '));
        controller.enqueue(new TextEncoder().encode('part two'));
        controller.close();
      },
    });
    const posted = heldFetch(url('/checkout/post'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    const streamed = heldFetch(url('/checkout/stream'), { method: 'PUT', body: stream, duplex: 'half' } as RequestInit);
    await waitingIn(progress);
    await eventually(
      'both held',
      async () => progress[progress.length - 1],
      (last) => last?.held == 2,
    );
    await release();
    expect(await (await posted).json()).toEqual({ method: 'POST', url: '/checkout/post', body: text });
    expect(await (await streamed).json()).toEqual({ method: 'PUT', url: '/checkout/stream', body: 'part one, part two' });
    expect(received('/checkout/post')).toBe(1);
    expect(received('/checkout/stream')).toBe(1);
  });

  it('should let several requests held at once share one wait and one connection, each reaching the site once', async () => {
    const { heldFetch, connections, progress } = await newHeldFetch();
    const answers = [1, 2, 3].map((n) => heldFetch(url(`/checkout/many?n=${n}`)));
    await eventually(
      'three held',
      async () => progress[progress.length - 1],
      (last) => last?.held == 3 && last.status?.kind == 'waiting',
    );
    expect(connections).toHaveLength(1);
    await release();
    const bodies = await Promise.all(answers.map(async (answered) => (await answered).json()));
    expect(bodies.map((body) => body.url)).toEqual(['/checkout/many?n=1', '/checkout/many?n=2', '/checkout/many?n=3']);
    expect(
      origin
        .at('/checkout/many')
        .map((one) => one.url)
        .sort(),
    ).toEqual(['/checkout/many?n=1', '/checkout/many?n=2', '/checkout/many?n=3']);
    expect(connections).toEqual([{ disconnected: true }]);
  });

  it('should let requests sent at once before the browser had a session all wait for the place of the session it kept', async () => {
    const { heldFetch, progress } = await newHeldFetch({}, true);
    const answers = [1, 2, 3].map((n) => heldFetch(url(`/checkout/race?n=${n}`)));
    await eventually(
      'three held',
      async () => progress[progress.length - 1],
      (last) => last?.held == 3 && last.status?.kind == 'waiting',
    );
    // Each took a place (three sessions); the browser kept the last session's cookie, and the
    // line releases the oldest first: the requests pass once that last place is released.
    expect(await release({ count: 3 })).toHaveLength(3);
    const bodies = await Promise.all(answers.map(async (answered) => (await answered).json()));
    expect(bodies.map((body) => body.url)).toEqual(['/checkout/race?n=1', '/checkout/race?n=2', '/checkout/race?n=3']);
    expect(
      origin
        .at('/checkout/race')
        .map((one) => one.url)
        .sort(),
    ).toEqual(['/checkout/race?n=1', '/checkout/race?n=2', '/checkout/race?n=3']);
  });

  it('should resolve when the release came before the wait listened (before queue_request)', async () => {
    const { fetch: inBrowser } = browser();
    let releasedEarly = false;
    const { heldFetch } = await newHeldFetch(
      {
        // Released the moment the gateway held it, before the answer reaches heldFetch.
        fetch: async (request) => {
          const response = await inBrowser(request);
          if (response.status == 503 && !releasedEarly) {
            releasedEarly = true;
            expect(await release()).toHaveLength(1);
          }
          return response;
        },
      },
      true,
    );
    const response = await heldFetch(url('/checkout/early'));
    expect(releasedEarly).toBe(true);
    expect(await response.json()).toMatchObject({ url: '/checkout/early' });
    expect(received('/checkout/early')).toBe(1);
  });

  it('should reject with the abort reason, close the connection and stop polling, and never send the request', async () => {
    const { heldFetch, calls, connections, progress } = await newHeldFetch();
    const abort = new AbortController();
    const answered = heldFetch(url('/checkout/aborted'), { signal: abort.signal });
    await waitingIn(progress);
    abort.abort();
    await expect(answered).rejects.toMatchObject({ name: 'AbortError' });
    expect(connections).toEqual([{ disconnected: true }]);
    expect(progress[progress.length - 1]).toEqual({ held: 0, status: null, language: null });
    const callsThen = calls.length;
    await new Promise((resolve) => setTimeout(resolve, TIMINGS.anonymousPoll * 3));
    expect(calls).toHaveLength(callsThen);
    await release();
    expect(received('/checkout/aborted')).toBe(0);
  });

  it('should reject as soon as the wait fails, with the specification message, and never send the request', async () => {
    const { heldFetch, connections, progress } = await newHeldFetch();
    const answered = heldFetch(url('/checkout/failing'));
    await waitingIn(progress);
    // Released without the release event: queue_info says 0, and the event never comes.
    await release({ count: 1, silent: true });
    const error = await answered.catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(WaitingRoomError);
    expect(error).toMatchObject({ code: 'failed', message: 'Websocket KO - position 0 depuis 10sec' });
    expect(connections).toEqual([{ disconnected: true }]);
    expect(received('/checkout/failing')).toBe(0);
  });

  it("should hand back every other answer as it is: the site's own 503 included", async () => {
    const { heldFetch, connections } = await newHeldFetch();
    const through = await heldFetch(url('/open'));
    expect(await through.json()).toMatchObject({ url: '/open' });
    const busy = await heldFetch(url('/busy'));
    expect(busy.status).toBe(503);
    expect(await busy.json()).toEqual({ error: { code: 'maintenance', message: 'Back soon.' } });
    expect(connections).toHaveLength(0);
  });

  it('should reject a held answer whose config is malformed, naming what is wrong', async () => {
    const { heldFetch } = await newHeldFetch();
    const error = await heldFetch(url('/looks-held')).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(WaitingRoomError);
    expect((error as WaitingRoomError).code).toBe('bad_config');
    expect((error as WaitingRoomError).message).toMatch(/^The waiting room's answer is malformed: .*queue\.uuid must be/);
  });
});

describe('heldFetch() with the bot check on (BOT_CHALLENGE=pow)', () => {
  let origin: TestOrigin;
  let server: Started;
  const url = (path: string) => server.url + path;

  beforeAll(async () => {
    origin = await startTestOrigin(answer);
    server = await start(
      testConfig({
        UPSTREAM: origin.url,
        PROTECT: '/checkout',
        ACTIVE_LIMIT: '1',
        RELEASE_PER_MINUTE: '0',
        BOT_CHALLENGE: 'pow',
        BOT_CHALLENGE_DIFFICULTY: '8',
        PAGE_TIMINGS: JSON.stringify(TIMINGS),
      }),
    );
    expect((await fetch(url('/checkout/fill'))).status).toBe(200);
  });
  afterAll(async () => {
    await server.close();
    await origin.close();
  });

  const createFetch = (extra: Partial<HeldFetchDeps>) => {
    const { fetch, calls } = browser();
    const heldFetch = createHeldFetch({ fetch, createRealtime: (key, options) => new Pusher(key, options), ...extra });
    const progress: Progress[] = [];
    heldFetch.progress$.subscribe((one) => progress.push(one));
    return { heldFetch, calls, progress };
  };

  it('should solve the challenge of the held answer, send the solution with queue_request, take its place and get through once released', async () => {
    const challenges: unknown[] = [];
    const { heldFetch, progress } = createFetch({
      // What index.ts gives in a browser is the page's solver in Web Workers; Node's scrypt here.
      solveAltcha: async (challenge) => {
        challenges.push(challenge);
        return solveAltchaInNode(challenge);
      },
    });

    const answered = heldFetch(url('/checkout/drop?item=1'));
    await eventually(
      'a position',
      async () => progress[progress.length - 1],
      (last) => last?.status?.kind == 'waiting',
    );

    expect(challenges).toHaveLength(1);
    expect(progress[progress.length - 1]).toMatchObject({ status: { kind: 'waiting', position: 1 } });
    await admin(server, 'POST', 'release', { count: 1 });
    expect(await (await answered).json()).toMatchObject({ url: '/checkout/drop?item=1' });
    expect(origin.at('/checkout/drop')).toHaveLength(1);
  });

  it('should report a held answer with a challenge and no solver, and take no place', async () => {
    const errors: string[] = [];
    const { heldFetch, calls, progress } = createFetch({ onSourceError: (source, error) => errors.push(`${source}: ${String(error)}`) });
    const controller = new AbortController();

    const answered = heldFetch(url('/checkout/nosolver'), { signal: controller.signal }).catch((reason: unknown) => reason);
    await eventually(
      'the failure reported',
      async () => errors,
      (reported) => reported.length > 0,
    );

    expect(errors).toEqual(['altcha$: Error: The bot check has no solver']);
    expect(calls).not.toContain('POST /queue/request');
    expect(progress[progress.length - 1]).toMatchObject({ status: { kind: 'loading' } });
    controller.abort();
    await answered;
  });
});

describe('heldFetch() in a room other than the first', () => {
  /** Ten minutes between polls: only the line's push can move the position within the test. */
  const LONG_POLLS = { anonymousPoll: 600_000, poll: 600_000 };
  const ROOMS = JSON.stringify([
    { name: 'checkout', protect: ['/checkout'], activeLimit: 1 },
    { name: 'tickets', protect: ['/tickets'], activeLimit: 1 },
  ]);
  let origin: TestOrigin;
  let server: Started;
  const url = (path: string) => server.url + path;

  beforeAll(async () => {
    origin = await startTestOrigin(answer);
    server = await start(testConfig({ UPSTREAM: origin.url, ROOMS, RELEASE_PER_MINUTE: '0', PAGE_TIMINGS: JSON.stringify(LONG_POLLS) }));
    // The tickets' room is full, and one place waits at the head of its line.
    expect((await fetch(url('/tickets/fill'))).status).toBe(200);
    expect((await fetch(url('/tickets/head'))).status).toBe(503);
  });
  afterAll(async () => {
    await server.close();
    await origin.close();
  });

  it("should move up as soon as its room releases, from the move on that room's channel", async () => {
    const { fetch: fetchInBrowser, calls } = browser();
    const heldFetch = createHeldFetch({ fetch: fetchInBrowser, createRealtime: (key, options) => new Pusher(key, options), solveAltcha: solveAltchaInNode });
    const progress: Progress[] = [];
    const subscription = heldFetch.progress$.subscribe((one) => progress.push(one));
    const answered = heldFetch(url('/tickets/mine'));
    const positionIs = (position: number, timeoutMs?: number) =>
      eventually(
        `position ${position}`,
        async () => progress[progress.length - 1]?.status,
        (status) => status?.kind == 'waiting' && status.position == position,
        timeoutMs,
      );
    const polls = () => calls.filter((call) => call.startsWith('GET /queue/info/')).length;
    // Its first queue_info calls answered (the ticket the moves count from); the next poll is ten minutes away.
    await eventually(
      'the first poll',
      async () => polls(),
      (count) => count >= 1,
    );
    await positionIs(2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const pollsBefore = polls();

    const releasedAt = Date.now();
    expect((await admin(server, 'POST', 'release', { count: 1, room: 'tickets' })).status).toBe(200);
    await positionIs(1, 5000);
    expect(Date.now() - releasedAt).toBeLessThan(5000);
    expect(polls()).toBe(pollsBefore);

    expect((await admin(server, 'POST', 'release', { count: 1, room: 'tickets' })).status).toBe(200);
    expect((await answered).status).toBe(200);
    subscription.unsubscribe();
  });
});
