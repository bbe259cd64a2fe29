import {
  START_SESSIONS,
  activeLimitFor,
  activeLimitOf,
  decide,
  initialState,
  stateFrom,
  type ControllerState,
  type LawSettings,
} from '../../server/domain/admission/law';
import type { SignalSummary } from '../../server/domain/admission/signals';

/** The law alone: a state and a window of signals in, the next state and its reason out. */
describe('adaptive admission law', () => {
  const settings: LawSettings = {
    targetMs: 200,
    feedbackMs: 10_000,
    stepMs: 2000,
    ceilingPerMinute: 6000,
    ceilingActive: 2000,
    sessionMs: 12_000,
  };
  const t0 = 1_700_000_000_000;
  const waiting = { waiting: 50, paused: false };
  const signals = (p99Ms: number, more: Partial<SignalSummary> = {}): SignalSummary => ({
    sent: 500,
    requests: 500,
    errors: 0,
    timeouts: 0,
    unreachable: 0,
    lagged: 0,
    p50Ms: Math.min(p99Ms, 50),
    p90Ms: p99Ms,
    p99Ms,
    from: t0 - 6000,
    to: t0,
    ...more,
  });
  const at = (state: ControllerState, p99Ms: number, now = t0, room = waiting, more: Partial<SignalSummary> = {}) =>
    decide(state, signals(p99Ms, more), { now, ...room }, settings);

  it('should start from ten sessions at once and the rate that keeps them, whatever the ceilings', () => {
    expect(initialState(settings)).toEqual({
      // Ten a feedback time of 10 s: 60 a minute, under a tenth of the ceiling (600).
      perMinute: 60,
      threshold: null,
      episodeStart: null,
      lastCongestionAt: null,
      lastCutAt: null,
      severityAtCut: null,
      loadCap: null,
      loadKnee: null,
      perSession: null,
      activeCap: START_SESSIONS,
    });
    // Ceilings far too high change nothing; a low one is still kept to a tenth.
    for (const [ceilingPerMinute, ceilingActive, perMinute, activeLimit] of [
      [6000, 2000, 60, 10],
      [6_000_000, 1_000_000, 60, 10],
      [200, 2000, 20, 5],
      [6000, 4, 24, 4],
    ]) {
      const ceilings = { ...settings, ceilingPerMinute, ceilingActive };
      const state = initialState(ceilings);
      expect({ perMinute: state.perMinute, activeLimit: activeLimitOf(state, ceilings) }).toEqual({ perMinute, activeLimit });
    }
  });

  it('should double the rate each feedback time while the p99 is under 55 % of the target and visitors wait', () => {
    let state = initialState(settings);
    for (let step = 1; step <= 5; step++) {
      const next = at(state, 100, t0 + step * settings.stepMs);
      expect(next.decision).toMatchObject({ action: 'increase', reason: 'starting' });
      state = next.state;
    }
    // Five steps of 2 s make one feedback time of 10 s.
    expect(state.perMinute).toBeCloseTo(120, 6);
  });

  it('should hold while nobody waits or the room is paused: a rate not in use says nothing', () => {
    const state = initialState(settings);
    expect(at(state, 50, t0, { waiting: 0, paused: false }).decision).toMatchObject({ action: 'hold', reason: 'not_in_use', perMinute: 60 });
    expect(at(state, 50, t0, { waiting: 9, paused: true }).decision).toMatchObject({ action: 'hold', reason: 'not_in_use' });
  });

  it('should hold while the p99 is between 55 and 70 % of the target', () => {
    const state = stateFrom(1000, settings);
    for (const p99 of [111, 140]) {
      expect(at(state, p99).decision).toMatchObject({ action: 'hold', reason: 'latency_near_target', perMinute: 1000 });
    }
  });

  it('should cut the rate by a tenth above 70 % of the target, and by half above twice the target', () => {
    const state = stateFrom(1000, settings);
    expect(at(state, 141)).toMatchObject({
      decision: { action: 'decrease', reason: 'latency_high', perMinute: 900 },
      state: { perMinute: 900, threshold: 900, lastCutAt: t0 },
    });
    expect(at(state, 401)).toMatchObject({
      decision: { action: 'decrease', reason: 'latency_severe', perMinute: 500 },
      state: { perMinute: 500, threshold: 500 },
    });
    expect(at(state, 141).decision.detail).toBe('p99 141 ms, over 70 % of the 200 ms target: rate × 0.9');
  });

  it('should cut by half when more than 1 % of the requests fail: 5xx, timeouts or an origin out of reach', () => {
    const state = stateFrom(1000, settings);
    for (const failures of [{ errors: 6 }, { timeouts: 6 }, { unreachable: 6 }]) {
      const next = at(state, 50, t0, waiting, failures);
      expect(next.decision).toMatchObject({ action: 'decrease', reason: 'errors', perMinute: 500 });
      expect(next.decision.detail).toMatch(/^6 of 50\d requests failed/);
    }
    // One error in 500 is below the share; one alone is never enough.
    expect(at(state, 50, t0, waiting, { errors: 1, requests: 10 }).decision.action).toBe('increase');
    expect(at(state, 50, t0, waiting, { errors: 2 }).decision.action).toBe('increase');
  });

  it('should hold, not cut, on latencies an instance left out while its own event loop lagged', () => {
    const state = stateFrom(1000, settings);
    expect(at(state, 0, t0, waiting, { lagged: 1 }).decision).toMatchObject({ action: 'hold', reason: 'gateway_busy', perMinute: 1000 });
    // Errors and timeouts are the origin's whatever the gateway's loop did.
    expect(at(state, 0, t0, waiting, { lagged: 1, timeouts: 10 }).decision).toMatchObject({ action: 'decrease', reason: 'errors' });
  });

  it('should hold, not grow, while requests go to the origin and none is answered', () => {
    const state = stateFrom(1000, settings);
    expect(at(state, 0, t0, waiting, { sent: 40, requests: 0 }).decision).toMatchObject({ action: 'hold', reason: 'no_answers' });
    // Nothing sent, nothing answered: the visitors let in have not asked yet; nothing says the origin is busy.
    expect(at(state, 0, t0, waiting, { sent: 0, requests: 0 }).decision.action).toBe('increase');
  });

  it('should not cut on the latency of fewer than twenty answers', () => {
    const state = stateFrom(1000, settings);
    expect(at(state, 900, t0, waiting, { requests: 19 }).decision).toMatchObject({ action: 'hold', reason: 'few_samples' });
    expect(at(state, 900, t0, waiting, { requests: 20 }).decision.action).toBe('decrease');
  });

  it('should cut at most once each half feedback time, however long the load takes to fall', () => {
    const cut = at(stateFrom(1000, settings), 300).state;
    const soon = at(cut, 300, t0 + 4000);
    expect(soon.decision).toMatchObject({ action: 'hold', reason: 'cut_recently', perMinute: 900 });
    expect(soon.decision.detail).toMatch(/the last cut, 4 s ago/);
    // Even four times as bad: within half a feedback time, the cut has not begun to show.
    expect(at(soon.state, 1200, t0 + 4000).decision).toMatchObject({ action: 'hold', reason: 'cut_recently' });
  });

  it("should await a cut's effect one feedback time before another cut, unless the congestion is markedly worse", () => {
    // Severe: p99 at 2.3 times the target, the rate halved.
    const cut = at(stateFrom(1000, settings), 460).state;
    expect(cut).toMatchObject({ perMinute: 500, severityAtCut: 2.3 });
    // The visitors admitted before the cut still load the origin: the p99 goes on rising a while.
    let state = cut;
    for (const [ms, p99] of [
      [6000, 480],
      [8000, 600],
      [9998, 900],
    ] as const) {
      const next = at(state, p99, t0 + ms);
      expect(next.decision).toMatchObject({ action: 'hold', reason: 'cut_recently', perMinute: 500 });
      state = next.state;
    }
    expect(at(cut, 480, t0 + 6000).decision.detail).toMatch(/takes a feedback time to show in full, and things are not markedly worse/);
    // Twice as bad as at the cut: something new, cut again at once.
    expect(at(cut, 920, t0 + 6000).decision).toMatchObject({ action: 'decrease', reason: 'latency_severe', perMinute: 250 });
    // A feedback time on and no better: the cut was not enough, cut again.
    expect(at(state, 480, t0 + 10_000).decision).toMatchObject({ action: 'decrease', perMinute: 250 });
    // The same for a mild cut: hold on a p99 that goes on rising, cut on one twice as bad.
    const mild = at(stateFrom(1000, settings), 150).state;
    expect(at(mild, 160, t0 + 6000).decision).toMatchObject({ action: 'hold', reason: 'cut_recently', perMinute: 900 });
    expect(at(mild, 300, t0 + 6000).decision).toMatchObject({ action: 'decrease', perMinute: 810 });
  });

  it('should not cut again while the congestion is getting better: the last cut is taking effect', () => {
    const cut = at(stateFrom(1000, settings), 600).state;
    expect(cut).toMatchObject({ perMinute: 500, severityAtCut: 3 });
    const better = at(cut, 500, t0 + 6000);
    expect(better.decision).toMatchObject({ action: 'hold', reason: 'recovering', perMinute: 500 });
    // Not better by a tenth once a feedback time has passed: cut again.
    expect(at(cut, 560, t0 + 10_000).decision).toMatchObject({ action: 'decrease', perMinute: 250 });
  });

  it('should grow by a tenth of the threshold each feedback time above it, after a congestion', () => {
    let state: ControllerState = { ...stateFrom(1000, settings), lastCongestionAt: t0 };
    for (let step = 1; step <= 5; step++) state = at(state, 100, t0 + step * 2000).state;
    expect(state.perMinute).toBeCloseTo(1100, 6);
    expect(at(state, 100).decision.reason).toBe('latency_low');
  });

  it('should probe once two feedback times passed with no congestion, the faster the lower the p99', () => {
    const calm: ControllerState = { ...stateFrom(1000, settings), lastCongestionAt: t0 - 2 * settings.feedbackMs };
    const feedbackTime = (p99: number) => {
      let state = calm;
      for (let step = 1; step <= 5; step++) state = at(state, p99, t0 + step * 2000).state;
      return state.perMinute;
    };
    // The band starts at 110 ms: at 55 ms, half of the most (+ 50 %) a feedback time.
    expect(feedbackTime(55)).toBeCloseTo(1250, 6);
    expect(feedbackTime(0)).toBeCloseTo(1500, 6);
    // Near the band, the additive step (+ 10 % of the threshold) is the larger.
    expect(feedbackTime(105)).toBeCloseTo(1100, 6);
  });

  it('should judge a congestion afresh once one decision found none', () => {
    const cut = at(stateFrom(1000, settings), 600).state;
    const calm = at(cut, 100, t0 + 4000).state;
    expect(calm.severityAtCut).toBeNull();
    // Far milder than at the cut, but a new congestion all the same: cut.
    expect(at(calm, 150, t0 + 6000).decision).toMatchObject({ action: 'decrease', reason: 'latency_high' });
  });

  it('should slow-start back to the threshold after a cut, then grow additively', () => {
    let state = at(stateFrom(1000, settings), 401).state;
    expect(state).toMatchObject({ perMinute: 500, threshold: 500 });
    // A second severe cut in the same episode: the threshold stays at half the rate it began at.
    state = at(state, 401, t0 + 10_000).state;
    expect(state).toMatchObject({ perMinute: 250, threshold: 500 });
    const steps: string[] = [];
    for (let step = 1; step <= 12; step++) {
      const next = at(state, 100, t0 + 10_000 + step * 2000);
      steps.push(next.decision.reason);
      state = next.state;
    }
    expect(steps.slice(0, 5)).toEqual(Array(5).fill('starting'));
    expect(steps.slice(-3)).toEqual(Array(3).fill('latency_low'));
    expect(state.perMinute).toBeGreaterThan(500);
    expect(state.perMinute).toBeLessThan(600);
  });

  it('should start a new episode when congestion comes back long after the last', () => {
    const first = at(stateFrom(1000, settings), 401).state;
    expect(first.episodeStart).toBe(1000);
    const later = at({ ...first, perMinute: 800 }, 401, t0 + 2 * settings.feedbackMs + 1).state;
    expect(later).toMatchObject({ episodeStart: 800, perMinute: 400, threshold: 400 });
  });

  it('should never go above RELEASE_PER_MINUTE nor below one a minute', () => {
    let state = stateFrom(5990, settings);
    state = at(state, 10).state;
    expect(state.perMinute).toBe(6000);
    expect(at(state, 10).decision).toMatchObject({ action: 'hold', reason: 'at_ceiling' });
    let low = stateFrom(1.5, settings);
    for (let cut = 0; cut < 5; cut++) low = at(low, 500, t0 + cut * settings.feedbackMs).state;
    expect(low.perMinute).toBe(1);
  });

  it('should set the active limit to what the rate fills in a session and a quarter, within ACTIVE_LIMIT', () => {
    // 600 a minute for 12 s sessions: 120 at once, 150 with the quarter.
    expect(activeLimitFor(600, settings)).toBe(150);
    expect(activeLimitFor(60_000, settings)).toBe(2000);
    expect(activeLimitFor(1, settings)).toBe(1);
    expect(at(stateFrom(600, settings), 130).decision.activeLimit).toBe(150);
  });

  describe('weighed by the load the admitted visitors bring', () => {
    /** A window of 6 s in which `active` sessions brought `perSession` requests a second each, all answered. */
    const weighed = (state: ControllerState, p99Ms: number, active: number, perSession: number, now = t0) => {
      const requests = Math.round(active * perSession * 6);
      return decide(state, signals(p99Ms, { sent: requests, requests }), { now, waiting: 500, paused: false, active }, settings);
    };

    it('should let the admitted bring a quarter more than the origin answered within the band, one window at a time', () => {
      // The opening: ten sessions, each a request a second, answered in 50 ms.
      let state = initialState(settings);
      const limits: number[] = [];
      let active = START_SESSIONS;
      for (let window = 1; window <= 4; window++) {
        const next = weighed(state, 50, active, 1, t0 + window * settings.stepMs);
        expect(next.decision).toMatchObject({ action: 'increase', reason: 'starting' });
        state = next.state;
        limits.push(next.decision.activeLimit);
        // The sessions admitted fill the new limit before the next window.
        active = next.decision.activeLimit;
      }
      // 10 req/s answered: 12.5 allowed, 13 sessions; then 13 → 17 → 22 → 28.
      expect(limits).toEqual([13, 17, 22, 28]);
      expect(state.loadCap).toBeCloseTo(27.5, 6);
      // The rate lets the limit fill within two steps (28 in 4 s: 420 a minute).
      expect(state.perMinute).toBe(420);
    });

    it('should grow only with what the origin answered: no new answers, no more sessions', () => {
      const first = weighed(initialState(settings), 50, 10, 1).state;
      // The sessions let in have not come yet: the same load answered, the same limit.
      const again = weighed(first, 50, 10, 1, t0 + settings.stepMs);
      expect(again.decision.activeLimit).toBe(13);
      expect(again.state.loadCap).toBeCloseTo(12.5, 6);
    });

    it('should admit fewer sessions when each brings more requests', () => {
      // The same 40 req/s answered, by 40 visitors at 1 a second, or by 20 at 2 a second.
      const opening: ControllerState = { ...initialState(settings), perMinute: 6000 };
      const calm = weighed(opening, 50, 40, 1);
      const frantic = weighed(opening, 50, 20, 2);
      expect(calm.state.loadCap).toBeCloseTo(50, 6);
      expect(frantic.state.loadCap).toBeCloseTo(50, 6);
      expect(calm.decision.activeLimit).toBe(50);
      expect(frantic.decision.activeLimit).toBe(25);
    });

    it('should grow by a quarter a feedback time, not a window, past the load the origin held or was cut at', () => {
      const opening: ControllerState = { ...initialState(settings), perMinute: 6000, loadKnee: 20 };
      // Below the knee, a quarter more, up to the knee; past it, a quarter a feedback time (five steps).
      for (const [answered, loadCap] of [
        [10, 12.5],
        [18, 20],
        [40, 42],
      ]) {
        expect(weighed(opening, 50, answered, 1).state.loadCap).toBeCloseTo(loadCap, 6);
      }
      // The knee is the load answered when the p99 left the band it grows in.
      expect(weighed(opening, 120, 30, 1).state.loadKnee).toBe(30);
      expect(weighed(opening, 150, 35, 1).state.loadKnee).toBe(35);
    });

    it.each([
      ['over 70 % of the target', 141, 'latency_high', 0.9],
      ['over twice the target', 401, 'latency_severe', 0.5],
    ])('should cut from the rate that keeps the sessions admitted when the p99 is %s, then let the rate rule', (_what, p99Ms, reason, cut) => {
      // In slow start, 200 sessions at a request a second each, the rate far above what keeps them.
      const grown: ControllerState = { ...initialState(settings), perMinute: 3000, loadCap: 250, perSession: 1, activeCap: 250 };
      const next = weighed(grown, p99Ms, 200, 1);
      expect(next.decision).toMatchObject({ action: 'decrease', reason });
      // Cut from the rate that keeps 250 sessions of 12 s (1250 a minute), not from the rate the
      // limit left unused; the threshold at least half of it.
      expect(next.state.perMinute).toBeCloseTo(1250 * cut, 6);
      expect(next.state.threshold).toBeCloseTo(Math.max(1250 * cut, 625), 6);
      expect(next.state.loadCap).toBeCloseTo(200 * cut, 6);
      // The rate that keeps the origin busy found, the active limit follows it again.
      expect(next.state.activeCap).toBeNull();
      expect(next.decision.activeLimit).toBe(activeLimitFor(1250 * cut, settings));
    });

    it('should hold what the admitted may bring between 55 and 70 % of the target', () => {
      const state: ControllerState = { ...initialState(settings), perMinute: 1000, loadCap: 100, perSession: 1, activeCap: 100 };
      const next = weighed(state, 120, 100, 1);
      expect(next.decision).toMatchObject({ action: 'hold', reason: 'latency_near_target', activeLimit: 100 });
      expect(next.state.loadCap).toBe(100);
    });

    it('should not end the opening on its slowest answers alone: too few answers, or the p90 within the band, hold', () => {
      const opening = initialState(settings);
      const room = { now: t0, waiting: 500, paused: false, active: 10 };
      // A server just started: two slow first answers of 40, the p99 past twice the target.
      const cold = decide(opening, signals(420, { sent: 40, requests: 40, p90Ms: 60 }), room, settings);
      // A late event loop: a few slow answers of 300, the p90 at 60 ms.
      const stalled = decide(opening, signals(300, { sent: 300, requests: 300, p90Ms: 60 }), room, settings);
      // Even with the p90 slow, too few answers to read a p99 from.
      const few = decide(opening, signals(300, { sent: 60, requests: 60, p90Ms: 250 }), room, settings);
      for (const next of [cold, stalled, few]) {
        expect(next.decision).toMatchObject({ action: 'hold', reason: 'few_samples', activeLimit: 10 });
        expect(next.state.threshold).toBeNull();
        expect(next.state.activeCap).toBe(10);
      }
      expect(stalled.decision.detail).toBe(
        'p99 300 ms from 300 answers, p90 60 ms: in the opening, latency alone cuts from 100 answers with the p90 over 55 % of the 200 ms target',
      );
      // Errors and timeouts cut the opening as ever, however few the answers.
      expect(decide(opening, signals(60, { sent: 40, requests: 36, errors: 4, p90Ms: 60 }), room, settings).decision).toMatchObject({
        action: 'decrease',
        reason: 'errors',
      });
    });

    it('should end the opening on a slow p99 and p90 from 100 answers, and grow back with the answers to the rate cut to', () => {
      // In the opening, 200 sessions at a request a second each; the origin slows them all.
      const grown: ControllerState = { ...initialState(settings), perMinute: 3000, loadCap: 250, perSession: 1, activeCap: 250 };
      const cut = weighed(grown, 141, 200, 1);
      expect(cut.decision).toMatchObject({ action: 'decrease', reason: 'latency_high' });
      // The rate that keeps 250 sessions of 12 s (1250 a minute) × 0.9; the load answered × 0.9.
      expect(cut.state.regrow).toEqual({ load: 180, perMinute: 1125 });
      expect(cut.state.threshold).toBe(1125);

      // The load admitted before the cut arrives yet: cut again, by half, at 562.5 a minute.
      const later = t0 + 2 * settings.feedbackMs;
      const halved: ControllerState = { ...cut.state, perMinute: 562.5, threshold: 625, lastCongestionAt: later - settings.feedbackMs };
      // Calm again, the origin answering 100 requests a second: the rate that brings a quarter
      // more, 1125 × 125 / 180, not the slow start's few percent.
      const back = weighed(halved, 50, 100, 1, later);
      expect(back.decision).toMatchObject({ action: 'increase', reason: 'starting' });
      expect(back.decision.detail).toMatch(/growing with the answers back to the 180 requests a second allowed at the opening's cut$/);
      expect(back.state.perMinute).toBeCloseTo(781.25, 6);
      expect(back.state.regrow).toEqual({ load: 180, perMinute: 1125 });
      // Never past the rate cut to, however far the answers grow towards the load.
      expect(weighed(halved, 50, 170, 1, later).state.perMinute).toBeCloseTo(1125, 6);
      // Once the origin answers that load again, the law as ever (slow start up to 625).
      const done = weighed({ ...halved, perMinute: 600 }, 50, 190, 1, later);
      expect(done.state.regrow).toBeNull();
      expect(done.state.perMinute).toBe(625);
    });

    it('should leave the active limit to the rate when the room does not count its sessions', () => {
      const next = decide(initialState(settings), signals(50), { now: t0, waiting: 50, paused: false }, settings);
      expect(next.state.activeCap).toBeNull();
      expect(next.decision.activeLimit).toBe(activeLimitFor(next.state.perMinute, settings));
    });
  });
});
