import { OPENING_SCENARIOS, STARTED_COLD, simulateOpening } from '../../bench/admission/opening';

/**
 * Adaptive admission from the opening, on the opening bench's virtual clock: the real controller
 * and line, a queueing origin whose latency grows with its backlog, visitors who browse on once
 * let in, and ceilings far too high.
 */
describe('adaptive admission from the opening', () => {
  it.each([OPENING_SCENARIOS[0], OPENING_SCENARIOS[3]])(
    'should keep the origin within its target from the first second, and at least half busy: $name',
    async (scenario) => {
      const figures = await simulateOpening(scenario);
      expect(figures.p99FirstTenSecondsMs).toBeLessThanOrEqual(scenario.targetMs);
      expect(figures.p99Ms).toBeLessThanOrEqual(scenario.targetMs);
      expect(figures.timeouts).toBe(0);
      expect(figures.utilisation).toBeGreaterThanOrEqual(0.5);
    },
  );

  it('should not be left far under the capacity by a few slow answers in the opening (a cold start, a late event loop)', async () => {
    const figures = await simulateOpening(STARTED_COLD);
    expect(figures.window?.goodput).toBeGreaterThanOrEqual(0.9);
    expect(figures.window?.p99Ms).toBeLessThanOrEqual(STARTED_COLD.targetMs);
  });
});
