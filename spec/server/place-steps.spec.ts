import { FIRST_PLACE_STEP, PLACE_STEP_MAX, PLACE_STEP_MIN, PLACE_STEP_MS, PlaceSteps } from '../../server/domain/events/place-steps';

describe("the size of a draw's steps", () => {
  it('should begin small, then size each step to take its time from what the last ones took', () => {
    const sizes = new PlaceSteps();
    expect(sizes.size).toBe(FIRST_PLACE_STEP);
    expect(PLACE_STEP_MS).toBe(15);
    // Two steps of 250 in 10 ms: 20 µs an entrant, so 750 would take 15 ms; 500, twice as many, first.
    sizes.took(2, 10);
    expect(sizes.size).toBe(500);
    sizes.took(2, 20);
    expect(sizes.size).toBe(750);
    // Slower now (40 µs an entrant): smaller at once.
    sizes.took(2, (2 * 750 * 40) / 1000);
    expect(sizes.size).toBe(375);
  });

  it('should grow at most twofold a step, and stay within its bounds', () => {
    const sizes = new PlaceSteps();
    sizes.took(2, 0.01);
    expect(sizes.size).toBe(2 * FIRST_PLACE_STEP);
    for (let i = 0; i < 20; i++) sizes.took(2, 0.01);
    expect(sizes.size).toBe(PLACE_STEP_MAX);
    // Steps at the most that took 10 s together (a stalled store): the smallest.
    sizes.took(2, 10_000);
    expect(sizes.size).toBe(PLACE_STEP_MIN);
  });

  it('should keep its size when nothing was measured', () => {
    const sizes = new PlaceSteps();
    sizes.took(0, 10);
    sizes.took(2, Number.NaN);
    expect(sizes.size).toBe(FIRST_PLACE_STEP);
  });
});
