import pino from 'pino';
import { AdaptiveAdmission, type AdaptiveOptions, type AdaptiveSettings } from '../../server/domain/admission/admission';
import type { ReleasePolicy } from '../../server/store/types';
import { MemoryAdmissionStore } from '../../server/store/admission-memory';
import type { AdmissionStore } from '../../server/domain/admission/record';
import { ManualClock } from './support/manual-clock';
import { ModelOrigin } from './support/model-origin';

/**
 * The controller on a manual clock against a model origin (`support/model-origin.ts`): 320
 * requests a second, eight a visit over eight seconds, so that 2,400 releases a minute fill it.
 */
describe('adaptive admission controller', () => {
  const STEP = 2000;
  const FEEDBACK = 10_000;
  const settings: AdaptiveSettings = { targetMs: 200, feedbackMs: FEEDBACK, stepMs: STEP, sessionMs: 12_000 };
  /** The operator's policy: its rate and limit are the ceilings. */
  let operated: ReleasePolicy;
  const silent = pino({ level: 'silent' });
  let clock: ManualClock;
  let stop: (() => Promise<void>) | undefined;

  const model = () => new ModelOrigin(320, { perVisit: 8, visitSeconds: 8, serviceMs: 50, subStepMs: 100 });
  const admission = (options: Partial<AdaptiveOptions> = {}) => {
    const created = new AdaptiveAdmission({
      operated: () => operated,
      settings,
      store: new MemoryAdmissionStore(),
      clock,
      log: silent,
      room: async () => ({ waiting: 1000, paused: false }),
      loopLagMs: () => 0,
      ...options,
    });
    stop = created.start();
    return created;
  };
  /** Runs the model and the controller for `ms`, step by step; the rate and the model's p99 of each step. */
  const run = async (origin: ModelOrigin, controller: AdaptiveAdmission, ms: number) => {
    const steps: { perMinute: number; p99Ms: number }[] = [];
    for (let elapsed = 0; elapsed < ms; elapsed += STEP) {
      const perMinute = controller.policy().perMinute;
      const { p99Ms } = origin.run(STEP, perMinute, [controller.signals]);
      steps.push({ perMinute, p99Ms });
      await clock.advance(STEP);
    }
    return steps;
  };
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

  beforeEach(() => {
    clock = new ManualClock();
    operated = { perMinute: 9600, activeLimit: 4000, sessionMs: 12_000, abandonMs: 180_000 };
  });
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  it('should converge on the rate the origin can take, from a safe start, within the latency target', async () => {
    const origin = model();
    const controller = admission();
    // Ten let in a feedback time of 10 s, far under a tenth of the ceiling.
    expect(controller.policy()).toMatchObject({ perMinute: 60, activeLimit: 10 });

    await run(origin, controller, 20 * FEEDBACK);
    const settled = await run(origin, controller, 10 * FEEDBACK);

    const rate = mean(settled.map((step) => step.perMinute)) / origin.capacityPerMinute();
    expect(rate).toBeGreaterThan(0.85);
    expect(rate).toBeLessThan(1.02);
    const within = settled.filter((step) => step.p99Ms <= settings.targetMs).length / settled.length;
    expect(within).toBeGreaterThanOrEqual(0.9);
    expect(controller.view()).toMatchObject({ mode: 'adaptive', controller: { phase: 'additive_increase' } });
  });

  it('should cut at once and re-settle within eight feedback times when the origin loses half its capacity', async () => {
    const origin = model();
    const controller = admission();
    await run(origin, controller, 30 * FEEDBACK);
    const before = controller.policy().perMinute;

    origin.capacity /= 2;
    const after = await run(origin, controller, 14 * FEEDBACK);

    // Cut by half at the first decision that saw the slower answers, then not again while the
    // admitted load drains and the latency falls.
    expect(after[1]?.perMinute).toBe(before / 2);
    const settled = after.slice((8 * FEEDBACK) / STEP);
    const rate = mean(settled.map((step) => step.perMinute)) / origin.capacityPerMinute();
    expect(rate).toBeGreaterThan(0.75);
    expect(rate).toBeLessThan(1.02);
    expect(Math.max(...settled.map((step) => step.p99Ms))).toBeLessThanOrEqual(settings.targetMs);
  });

  it.each([
    ['5xx answers', (signals: AdaptiveAdmission['signals']) => signals.answered(40, 503)],
    ['timeouts', (signals: AdaptiveAdmission['signals']) => signals.failed(true)],
    ['an origin out of reach', (signals: AdaptiveAdmission['signals']) => signals.failed(false)],
  ])('should halve the rate on %s, from the one that keeps its sessions', async (_what, fail) => {
    const controller = admission();
    for (let i = 0; i < 300; i++) controller.signals.answered(40, 200);
    for (let i = 0; i < 10; i++) fail(controller.signals);
    await clock.advance(STEP);

    expect(controller.policy().perMinute).toBe(25);
    expect(controller.view()).toMatchObject({ decision: { action: 'decrease', reason: 'errors', releasePerMinute: 25 } });
  });

  it('should hold a pinned rate and limit whatever the origin does, and go on from them once unpinned', async () => {
    const origin = model();
    const controller = admission();
    await run(origin, controller, 10 * FEEDBACK);

    const pinned = await controller.pin({ perMinute: 4000, activeLimit: 900 });
    expect(pinned).toMatchObject({ releasePerMinute: 4000, activeLimit: 900, pinned: { releasePerMinute: 4000, activeLimit: 900 } });
    // 4,000 a minute is far over the origin: it slows, and the controller is not allowed to act.
    const held = await run(origin, controller, 3 * FEEDBACK);
    expect(held.every((step) => step.perMinute === 4000)).toBe(true);
    expect(controller.policy().activeLimit).toBe(900);
    expect(Math.max(...held.map((step) => step.p99Ms))).toBeGreaterThan(settings.targetMs);
    expect(controller.view()).toMatchObject({ decision: { action: 'hold', reason: 'pinned' } });

    const unpinned = await controller.unpin();
    expect(unpinned).toMatchObject({ pinned: null, releasePerMinute: 4000, decision: { reason: 'unpinned' } });
    // The origin is far past its target: the first decision after unpinning halves the rate.
    await run(origin, controller, STEP);
    expect(controller.view()).toMatchObject({ decision: { action: 'decrease', reason: 'latency_severe' } });
    expect(controller.policy().perMinute).toBe(2000);
  });

  it('should leave out the latencies of a step its own event loop lagged through, and hold', async () => {
    let lag = 0;
    const controller = admission({ loopLagMs: () => lag });
    for (let i = 0; i < 100; i++) controller.signals.answered(900, 200);
    lag = 101;
    await clock.advance(STEP);
    expect(controller.view()).toMatchObject({ signals: { requests: 100, lagged: 1, p99Ms: 0 }, decision: { action: 'hold', reason: 'gateway_busy' } });
    expect(controller.policy().perMinute).toBe(60);

    // The next steps' slow answers, the loop on time, are the origin's.
    lag = 0;
    for (let i = 0; i < 100; i++) controller.signals.answered(900, 200);
    for (let step = 0; step < 3; step++) await clock.advance(STEP);
    expect(controller.view()).toMatchObject({ decision: { action: 'decrease', reason: 'latency_severe' } });
  });

  it("should keep within the operator's limits as its ceilings, whenever they change", async () => {
    const origin = model();
    const controller = admission();
    await run(origin, controller, 20 * FEEDBACK);
    expect(controller.policy().perMinute).toBeGreaterThan(1000);

    operated = { ...operated, perMinute: 1000, activeLimit: 150 };
    expect(controller.policy()).toMatchObject({ perMinute: 1000, activeLimit: 150 });
    expect(controller.view()).toMatchObject({ releasePerMinute: 1000, activeLimit: 150, ceilings: { releasePerMinute: 1000, activeLimit: 150 } });
    await run(origin, controller, 2 * FEEDBACK);
    expect(controller.policy().perMinute).toBeLessThanOrEqual(1000);
    await expect(controller.pin({ perMinute: 1001 })).rejects.toMatchObject({ kind: 'invalid', code: 'over_ceiling' });
  });

  it('should pin within the ceilings only, each value defaulting to the one in force', async () => {
    const controller = admission();
    await expect(controller.pin({ perMinute: 9601 })).rejects.toMatchObject({ kind: 'invalid', code: 'over_ceiling' });
    await expect(controller.pin({ activeLimit: 4001 })).rejects.toMatchObject({ kind: 'invalid', code: 'over_ceiling' });
    expect(await controller.pin({ activeLimit: 10 })).toMatchObject({ releasePerMinute: 60, activeLimit: 10 });
  });

  it('should keep the limits in force while its store fails, and decide again once it is back', async () => {
    const store = new MemoryAdmissionStore();
    let failing = false;
    const flaky: AdmissionStore = {
      report: (step, counts) => (failing ? Promise.reject(new Error('store away')) : store.report(step, counts)),
      counts: (steps) => store.counts(steps),
      read: () => store.read(),
      write: (version, next) => store.write(version, next),
    };
    const origin = model();
    const controller = admission({ store: flaky });
    await run(origin, controller, 4 * FEEDBACK);
    const before = controller.policy();

    failing = true;
    await run(origin, controller, 2 * FEEDBACK);
    expect(controller.policy()).toBe(before);

    failing = false;
    await run(origin, controller, STEP * 2);
    expect(controller.policy().perMinute).not.toBe(before.perMinute);
  });
});
