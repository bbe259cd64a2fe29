import type { ServerResponse } from 'node:http';
import { SAMPLE_MS, type LiveSnapshot } from '../../server/domain/console/samples';
import { startTestOrigin, type TestOrigin } from './support/origin';
import { ManualClock } from './support/manual-clock';
import { admin, startServer, stats, type StartedWithOrigin } from './support/server';
import { Visitor } from './support/visitor';

/**
 * Adaptive admission through the real server: the gateway times the origin's answers to admitted
 * requests (and only those), the controller decides on the release loop's clock, and the admin API
 * says what it decided and why, and lets an operator pin it.
 */
describe('adaptive admission in the server', () => {
  let origin: TestOrigin;
  let server: StartedWithOrigin;
  let clock: ManualClock;
  /** How the origin answers /checkout now. */
  let answer: (response: ServerResponse) => void;

  const ADAPTIVE = {
    ADMISSION: 'adaptive',
    ORIGIN_LATENCY_TARGET_MS: '200',
    ADMISSION_FEEDBACK_SECONDS: '10',
    UPSTREAM_TIMEOUT_MS: '400',
    RELEASE_PER_MINUTE: '600',
    ACTIVE_LIMIT: '100',
    SESSION_SECONDS: '60',
    AWAY_SECONDS: '3600',
  };
  const start = async (env: Record<string, string> = {}) => {
    clock = new ManualClock();
    origin = await startTestOrigin((request, response) => {
      if (request.url?.startsWith('/checkout')) return answer(response);
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('page');
    });
    server = await startServer({ ...ADAPTIVE, UPSTREAM: origin.url, ...env }, { clock });
  };
  const after =
    (ms: number, status = 200) =>
    (response: ServerResponse) =>
      setTimeout(() => {
        response.writeHead(status, { 'content-type': 'text/plain' });
        response.end('checkout');
      }, ms);
  const view = async (room?: string) => (await admin(server, 'GET', `admission${room ? `?room=${room}` : ''}`)).json();
  /** `count` visitors let in at once (nobody waits yet), each asking for the checkout `each` times in turn. */
  const shoppers = async (count: number, each = 1) =>
    (
      await Promise.all(
        Array.from({ length: count }, async (_, i) => {
          const visitor = new Visitor(server.url);
          const statuses: number[] = [];
          for (let n = 0; n < each; n++) statuses.push((await visitor.get(`/checkout?item=${i}`)).status);
          return statuses;
        }),
      )
    ).flat();

  beforeEach(() => {
    answer = after(0);
  });
  afterEach(async () => {
    await server.close();
    await origin.close();
  });

  it('should cut the rate when the origin answers admitted requests slower than the target allows', async () => {
    await start();
    // Ten sessions at first, whatever the ceilings, and ten let in a feedback time of 10 s.
    expect(await view()).toMatchObject({ mode: 'adaptive', releasePerMinute: 60, activeLimit: 10, ceilings: { releasePerMinute: 600, activeLimit: 100 } });
    answer = after(250);

    // In the opening, latency alone cuts from 100 answers, most of them slow: ten visitors, ten times each.
    expect(await shoppers(10, 10)).toEqual(Array(100).fill(200));
    await clock.advance(2000);

    const seen = await view();
    expect(seen.signals).toMatchObject({ requests: 100, errors: 0, timeouts: 0, unreachable: 0 });
    expect(seen.signals.p99Ms).toBeGreaterThanOrEqual(250);
    // Over 75 % of the target: a tenth off (half off over twice the target, should the machine be slow).
    expect(seen.decision).toMatchObject({ action: 'decrease', reason: expect.stringMatching(/^latency_(high|severe)$/) });
    const cut = seen.decision.reason === 'latency_high' ? 0.9 : 0.5;
    expect(seen.decision.detail).toMatch(new RegExp(`^p99 \\d+ ms, over .*200 ms target: rate × ${cut}$`));
    // From then on the active limit follows the rate: what it fills in a session, and a quarter.
    expect(await stats(server)).toMatchObject({ releasePerMinute: Math.round(10 * cut), activeLimit: Math.ceil(10 * cut * 1.25) });
    expect(origin.at('/checkout')).toHaveLength(100);
  });

  it.each([
    ['5xx answers', () => after(0, 503), { errors: 30, timeouts: 0 }],
    // Ten times UPSTREAM_TIMEOUT_MS: on a busy machine an answer at 2.5 times it once beat the timeout.
    ['timeouts', () => after(4000), { errors: 0, timeouts: 30 }],
  ])('should halve the rate on %s', async (_what, slow, counted) => {
    await start();
    answer = slow();

    const statuses = await shoppers(10, 3);
    await clock.advance(2000);

    expect(new Set(statuses)).toEqual(new Set([counted.timeouts ? 504 : 503]));
    expect(await view()).toMatchObject({
      signals: counted,
      decision: { action: 'decrease', reason: 'errors', releasePerMinute: 5 },
    });
  });

  it('should count only the answers to admitted requests, and grow the rate the release loop uses while visitors wait', async () => {
    await start({ ACTIVE_LIMIT: '10', RELEASE_PER_MINUTE: '600' });
    // The limit starts at 10 (the ceiling): ten shoppers in, the next ones wait.
    const admitted = Array.from({ length: 10 }, () => new Visitor(server.url));
    const visit = () => Promise.all(admitted.map(async (visitor) => (await visitor.get('/checkout')).status));
    expect(await visit()).toEqual(Array(10).fill(200));
    const waiting = [new Visitor(server.url), new Visitor(server.url)];
    for (const visitor of waiting) await visitor.hold();
    expect(await visit()).toEqual(Array(10).fill(200));

    await clock.advance(2000);

    const seen = await view();
    // The held requests never reached the origin; the admitted ones' answers are the twenty counted.
    expect(seen.signals.requests).toBe(20);
    expect(seen.decision).toMatchObject({ action: 'increase', reason: 'starting' });
    expect(seen.releasePerMinute).toBeGreaterThan(60);
    // The stats give whole releases a minute; /admission the exact rate.
    expect((await stats(server)).releasePerMinute).toBe(Math.round(seen.releasePerMinute));
  });

  it('should hold while nobody waits, however fast the origin', async () => {
    await start();
    await shoppers(10, 3);
    await clock.advance(2000);

    expect(await view()).toMatchObject({ releasePerMinute: 60, decision: { action: 'hold', reason: 'not_in_use' } });
  });

  it("should take the operator's limits (POST /admin/limits) as its ceilings", async () => {
    await start();
    const changed = await admin(server, 'POST', 'limits', { releasePerMinute: 6, activeLimit: 5 });
    expect(changed.status).toBe(200);

    expect(await view()).toMatchObject({
      releasePerMinute: 6,
      activeLimit: 5,
      ceilings: { releasePerMinute: 6, activeLimit: 5 },
      controller: { releasePerMinute: 60 },
    });
    expect(await stats(server)).toMatchObject({ releasePerMinute: 6, activeLimit: 5, configured: { releasePerMinute: 600, activeLimit: 100 } });
    // The gate admits five at once, no more.
    expect(await shoppers(5)).toEqual(Array(5).fill(200));
    expect((await new Visitor(server.url).get('/checkout')).page?.queue.position).toBe(1);
  });

  it('should let an operator pin the rate and the limit, and unpin them', async () => {
    await start();

    const pinned = await admin(server, 'POST', 'admission/pin', { releasePerMinute: 120, activeLimit: 3 });
    expect(pinned.status).toBe(200);
    expect(await pinned.json()).toMatchObject({ releasePerMinute: 120, activeLimit: 3, pinned: { releasePerMinute: 120, activeLimit: 3 } });
    // The pinned limit is the gate's: three in, the fourth waits.
    const admitted = Array.from({ length: 3 }, () => new Visitor(server.url));
    for (const visitor of admitted) expect((await visitor.get('/checkout')).status).toBe(200);
    expect((await new Visitor(server.url).get('/checkout')).page?.queue.position).toBe(1);
    // The origin fails them all: the controller sees it, and leaves the pin alone.
    answer = after(0, 503);
    for (const visitor of admitted) expect((await visitor.get('/checkout')).status).toBe(503);
    await clock.advance(2000);
    expect(await view()).toMatchObject({ releasePerMinute: 120, activeLimit: 3, signals: { errors: 3 }, decision: { reason: 'pinned' } });

    const unpinned = await admin(server, 'POST', 'admission/unpin', {});
    expect(await unpinned.json()).toMatchObject({ pinned: null, releasePerMinute: 120, decision: { reason: 'unpinned' } });
  });

  it("should show the operator console an adaptive room's rate, limit and last decision in its samples, and nothing more of a fixed one", async () => {
    await start({
      ROOMS: JSON.stringify([
        { name: 'checkout', protect: ['/checkout'] },
        { name: 'tickets', protect: ['/tickets'], admission: 'fixed' },
      ]),
    });
    await admin(server, 'POST', 'admission/pin?room=checkout', { releasePerMinute: 120, activeLimit: 3 });
    await clock.advance(SAMPLE_MS);

    const live = (await (await admin(server, 'GET', 'live')).json()) as LiveSnapshot;
    const [checkout, tickets] = live.history.at(-1)?.rooms ?? [];
    expect(checkout).toMatchObject({
      perMinute: 120,
      activeLimit: 3,
      admission: { mode: 'pinned', perMinute: 120, activeLimit: 3, reason: expect.stringMatching(/^pinned at 120 a minute and 3 at once: /) as unknown },
    });
    expect(tickets).toMatchObject({ room: 'tickets', perMinute: 600, activeLimit: 100 });
    expect(tickets).not.toHaveProperty('admission');
  });

  it.each([
    [{ releasePerMinute: 601 }, 400, 'over_ceiling'],
    [{ activeLimit: 0 }, 400, 'bad_pin'],
    [{ releasePerMinute: 1.5 }, 400, 'bad_pin'],
    [{ rate: 5 }, 400, 'bad_request'],
    [[1], 400, 'bad_request'],
  ])('should refuse the pin %j', async (body, status, code) => {
    await start();
    const response = await admin(server, 'POST', 'admission/pin', body);
    expect(response.status).toBe(status);
    expect(await response.json()).toMatchObject({ error: { code } });
  });

  it('should say a fixed room admits at its configured rate, and refuse to pin it', async () => {
    await start({ ADMISSION: 'fixed', RELEASE_PER_MINUTE: '6', ACTIVE_LIMIT: '2' });
    expect(await view()).toEqual({ mode: 'fixed', releasePerMinute: 6, activeLimit: 2 });
    const response = await admin(server, 'POST', 'admission/pin', {});
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ error: { code: 'not_adaptive' } });
  });

  it('should decide per room: the answers of one room\u2019s admitted requests move that room only', async () => {
    const rooms = JSON.stringify([
      { name: 'checkout', protect: ['/checkout'] },
      { name: 'tickets', protect: ['/tickets'], admission: 'fixed' },
      { name: 'drop', protect: ['/drop'] },
    ]);
    await start({ ROOMS: rooms });
    answer = after(250);
    await shoppers(10, 10);
    await clock.advance(2000);

    expect(await view('checkout')).toMatchObject({ decision: { action: 'decrease' }, signals: { requests: 100 } });
    expect(await view('tickets')).toEqual({ mode: 'fixed', releasePerMinute: 600, activeLimit: 100 });
    expect(await view('drop')).toMatchObject({ releasePerMinute: 60, signals: { requests: 0 }, decision: { reason: 'not_in_use' } });
    expect((await admin(server, 'GET', 'admission?room=nowhere')).status).toBe(404);
  });
});
