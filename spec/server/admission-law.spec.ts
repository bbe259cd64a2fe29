import { activeLimitFor, decide, initialState, stateFrom, type ControllerState, type LawSettings } from '../../server/domain/admission/law';
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

  it('should start at a tenth of the ceiling, in slow start', () => {
    expect(initialState(settings)).toEqual({
      perMinute: 600,
      threshold: null,
      episodeStart: null,
      lastCongestionAt: null,
      lastCutAt: null,
      severityAtCut: null,
    });
  });

  it('should double the rate each feedback time while the p99 is under 55 % of the target and visitors wait', () => {
    let state = initialState(settings);
    for (let step = 1; step <= 5; step++) {
      const next = at(state, 100, t0 + step * settings.stepMs);
      expect(next.decision).toMatchObject({ action: 'increase', reason: 'starting' });
      state = next.state;
    }
    // Five steps of 2 s make one feedback time of 10 s.
    expect(state.perMinute).toBeCloseTo(1200, 6);
  });

  it('should hold while nobody waits or the room is paused: a rate not in use says nothing', () => {
    const state = initialState(settings);
    expect(at(state, 50, t0, { waiting: 0, paused: false }).decision).toMatchObject({ action: 'hold', reason: 'not_in_use', perMinute: 600 });
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
});
