/** Entrants the draw's first step places (`placeDrawn`): a few ms of Redis on any machine. */
export const FIRST_PLACE_STEP = 250;

/** What one step of the draw aims to take, well under the 50 ms no call to the store may take. */
export const PLACE_STEP_MS = 15;

/**
 * The fewest and the most entrants a step places, whatever the steps measured. A step moves nobody
 * (the keying did, add-draw-keys.lua): it reads its keys and appends them to the draw's order, about
 * a µs of Redis an entrant, so the most keeps a step well inside `PLACE_STEP_MS` on a fast machine.
 */
export const PLACE_STEP_MIN = 50;
export const PLACE_STEP_MAX = 10_000;

/**
 * The size of the draw's steps, from the time the last ones took: a step costs about the same for
 * each entrant, so the next is sized to take `PLACE_STEP_MS`. It grows at most twofold at a time
 * (one quick step on a busy machine says little) and shrinks at once. A step's time is its caller's
 * (the round trip and the waits included), so a slow or busy store gets smaller steps.
 */
export class PlaceSteps {
  private current = FIRST_PLACE_STEP;

  /** Entrants the next step places. */
  get size(): number {
    return this.current;
  }

  /** `steps` steps of the current size, run one after the other in the store, took `ms` together. */
  took(steps: number, ms: number): void {
    if (steps <= 0 || !(ms >= 0)) return;
    const perEntrant = Math.max(ms, 0.001) / (steps * this.current);
    const fits = Math.floor(PLACE_STEP_MS / perEntrant);
    this.current = Math.max(PLACE_STEP_MIN, Math.min(PLACE_STEP_MAX, 2 * this.current, fits));
  }
}
