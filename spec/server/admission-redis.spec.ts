import Redis from 'ioredis';
import pino from 'pino';
import { AdaptiveAdmission } from '../../server/domain/admission/admission';
import { RedisAdmissionStore } from '../../server/store/redis/admission-store';
import { connectRedis } from '../../server/redis/connection';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { ManualClock } from './support/manual-clock';
import { ModelOrigin } from './support/model-origin';

/**
 * Two instances of one room on one real Redis: each sees its own share of the origin's answers,
 * and they share one decision, taken once a step by whichever gets there first.
 */
describe('adaptive admission shared through Redis', () => {
  const STEP = 2000;
  const FEEDBACK = 10_000;
  const settings = { targetMs: 200, feedbackMs: FEEDBACK, stepMs: STEP, sessionMs: 12_000 };
  const operated = { perMinute: 9600, activeLimit: 4000, sessionMs: 12_000, abandonMs: 180_000 };
  let redis: RedisServer;
  let clients: Redis[];
  let probe: Redis;
  let clock: ManualClock;
  let stops: (() => Promise<void>)[];

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis.close();
  });
  beforeEach(async () => {
    clock = new ManualClock();
    clients = [connectRedis(redis.url, { autoPipelining: true }), connectRedis(redis.url, { autoPipelining: true })];
    probe = new Redis(redis.url);
    await probe.flushall();
    stops = [];
  });
  afterEach(async () => {
    await Promise.all(stops.map((stop) => stop()));
    await Promise.all([...clients, probe].map((client) => client.quit().catch(() => client.disconnect())));
  });

  const instance = (client: Redis, waiting = 1000) => {
    const admission = new AdaptiveAdmission({
      operated: () => operated,
      settings,
      store: new RedisAdmissionStore(client, 'wr:', STEP),
      clock,
      log: pino({ level: 'silent' }),
      room: async () => ({ waiting, paused: false }),
      loopLagMs: () => 0,
    });
    stops.push(admission.start());
    return admission;
  };
  const version = async () => Number(await probe.hget('wr:adm', 'v'));

  it('should take one decision a step, on both instances\u2019 counts, and apply it on both', async () => {
    const [a, b] = [instance(clients[0]), instance(clients[1])];
    for (let i = 0; i < 150; i++) a.signals.answered(40, 200);
    for (let i = 0; i < 50; i++) b.signals.answered(300, 200);
    await clock.advance(STEP);
    // One decision for the step, whichever instance took it: one write. The first there decided
    // on what had come in; the other's counts of the step join it for the decisions after.
    expect(await version()).toBe(1);
    await clock.advance(STEP);
    expect(await version()).toBe(2);
    const { signals } = a.view() as { signals: { requests: number; p50Ms: number; p99Ms: number } };
    // Both instances' answers are in it: a quarter of them slow.
    expect(signals.requests).toBe(200);
    expect(signals.p50Ms).toBeLessThanOrEqual(42);
    expect(signals.p99Ms).toBeGreaterThanOrEqual(300);
    expect(a.view()).toMatchObject({ decision: { action: 'decrease', reason: 'latency_high' } });
    expect(b.policy()).toEqual(a.policy());

    await clock.advance(5 * STEP);
    expect(await version()).toBe(7);
    expect(b.view()).toEqual(a.view());
  });

  it('should converge on the origin\u2019s capacity with each instance seeing half the answers', async () => {
    const origin = new ModelOrigin(320, { perVisit: 8, visitSeconds: 8, serviceMs: 50, subStepMs: 100 });
    const [a, b] = [instance(clients[0]), instance(clients[1])];
    const rates: number[] = [];
    for (let elapsed = 0; elapsed < 30 * FEEDBACK; elapsed += STEP) {
      expect(b.policy().perMinute).toBe(a.policy().perMinute);
      origin.run(STEP, a.policy().perMinute, [a.signals, b.signals]);
      await clock.advance(STEP);
      if (elapsed >= 20 * FEEDBACK) rates.push(a.policy().perMinute);
    }
    const mean = rates.reduce((sum, rate) => sum + rate, 0) / rates.length / origin.capacityPerMinute();
    expect(mean).toBeGreaterThan(0.85);
    expect(mean).toBeLessThan(1.02);
  });

  it('should go on deciding when one instance dies, on the counts of the one left', async () => {
    const [a, b] = [instance(clients[0]), instance(clients[1])];
    await clock.advance(3 * STEP);
    const rate = a.policy().perMinute;
    await (stops.shift() as () => Promise<void>)();
    clients[0]?.disconnect();

    for (let i = 0; i < 100; i++) b.signals.answered(1000, 200);
    await clock.advance(STEP);
    expect(await version()).toBe(4);
    expect(b.view()).toMatchObject({ signals: { requests: 100 }, decision: { action: 'decrease', reason: 'latency_severe' } });
    expect(b.policy().perMinute).toBe(rate / 2);
  });

  it('should carry a pin and its removal from the instance that took it to the other', async () => {
    const [a, b] = [instance(clients[0]), instance(clients[1])];
    await clock.advance(STEP);

    await a.pin({ perMinute: 700, activeLimit: 90 });
    await clock.advance(STEP);
    expect(b.view()).toMatchObject({ releasePerMinute: 700, activeLimit: 90, pinned: { releasePerMinute: 700 }, decision: { reason: 'pinned' } });
    expect(b.policy().activeLimit).toBe(90);

    await b.unpin();
    await clock.advance(STEP);
    expect(a.view()).toMatchObject({ pinned: null, controller: { releasePerMinute: expect.any(Number) } });
    expect(a.policy().perMinute).toBeGreaterThanOrEqual(700);
  });
});
